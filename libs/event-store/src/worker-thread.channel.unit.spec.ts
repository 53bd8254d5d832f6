import { Worker } from 'node:worker_threads';
import { WorkerThreadChannel } from './worker-thread.channel';

/**
 * A real worker thread that answers each message it receives: it records the message's shape (one
 * request, or an array of them) and answers every request with its id, its echo and the size of
 * the message it came in, as one array of replies per message when `repliesAsArray`.
 */
function echoWorker(repliesAsArray: boolean): Worker {
  const source = `
    const { parentPort } = require('node:worker_threads');
    parentPort.on('message', (message) => {
      if (message === 'close') { parentPort.postMessage('closed'); return; }
      const requests = Array.isArray(message) ? message : [message];
      if (requests.some((request) => request.fail)) throw new Error('asked to fail');
      const replies = requests.map((request) => ({ id: request.id, ok: true, outcome: { echo: request.echo, sentWith: requests.length } }));
      if (${repliesAsArray}) parentPort.postMessage(replies);
      else for (const reply of replies) parentPort.postMessage(reply);
    });`;
  return new Worker(source, { eval: true });
}

const unavailable = (message: string): Error => new Error(`unavailable: ${message}`);

function channelOf(worker: Worker, batched: boolean, sendEvery?: number): WorkerThreadChannel {
  return new WorkerThreadChannel(worker, {
    thread: 'the echo thread',
    unavailable,
    refused: (error) => new Error(String(error)),
    closedMessage: 'echo is closed',
    batched,
    ...(sendEvery === undefined ? {} : { sendEvery }),
  });
}

type Echo = { echo: number; sentWith: number };

describe('WorkerThreadChannel', () => {
  it('batched: the requests of one turn cross as one message, and an array of replies settles each of them', async () => {
    const channel = channelOf(echoWorker(true), true);
    try {
      const first = await Promise.all([1, 2, 3].map((echo) => channel.request<Echo>({ echo })));
      expect(first).toEqual([1, 2, 3].map((echo) => ({ echo, sentWith: 3 })));
      // A later turn is a message of its own.
      await expect(channel.request<Echo>({ echo: 4 })).resolves.toEqual({ echo: 4, sentWith: 1 });
    } finally {
      await channel.close();
    }
  });

  it('batched with sendEvery: the requests of a turn go as soon as that many have gathered, the rest at the end of the turn', async () => {
    const channel = channelOf(echoWorker(true), true, 3);
    try {
      const echoes = await Promise.all([1, 2, 3, 4, 5, 6, 7].map((echo) => channel.request<Echo>({ echo })));
      expect(echoes.map((echo) => echo.sentWith)).toEqual([3, 3, 3, 3, 3, 3, 1]);
      expect(echoes.map((echo) => echo.echo)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    } finally {
      await channel.close();
    }
  });

  it('not batched: one message per request, and single replies settle them', async () => {
    const channel = channelOf(echoWorker(false), false);
    try {
      const echoes = await Promise.all([1, 2].map((echo) => channel.request<Echo>({ echo })));
      expect(echoes).toEqual([
        { echo: 1, sentWith: 1 },
        { echo: 2, sentWith: 1 },
      ]);
    } finally {
      await channel.close();
    }
  });

  it('close() sends the requests still waiting for their turn first, then ends the thread', async () => {
    const channel = channelOf(echoWorker(true), true);
    const waiting = [5, 6].map((echo) => channel.request<Echo>({ echo }));
    await channel.close();
    await expect(Promise.all(waiting)).resolves.toEqual([
      { echo: 5, sentWith: 2 },
      { echo: 6, sentWith: 2 },
    ]);
    await expect(channel.request({ echo: 7 })).rejects.toThrow('unavailable: echo is closed');
  });

  it('a thread that fails rejects every request of the batch it was handling, and every later one', async () => {
    const channel = channelOf(echoWorker(true), true);
    try {
      const batch = [channel.request({ echo: 1 }), channel.request({ fail: true })];
      for (const request of batch) await expect(request).rejects.toThrow('unavailable: the echo thread failed: asked to fail');
      await expect(channel.request({ echo: 2 })).rejects.toThrow('the echo thread failed');
    } finally {
      await channel.close();
    }
  });
});
