import { ConsumerOffsetWriter } from './consumer-offset.writer';
import type { MessagingLogger } from './kafka-client.factory';

/** A commit that counts its calls and answers when the test says (`answer`), or at once. */
function commits(options: { held?: boolean; fail?: boolean } = {}) {
  let calls = 0;
  let inFlight = 0;
  let mostInFlight = 0;
  const answers: (() => void)[] = [];
  const commit = async (): Promise<void> => {
    calls += 1;
    inFlight += 1;
    mostInFlight = Math.max(mostInFlight, inFlight);
    try {
      if (options.held) await new Promise<void>((resolve) => answers.push(resolve));
      if (options.fail) throw new Error('The group is rebalancing, so a rejoin is needed');
    } finally {
      inFlight -= 1;
    }
  };
  return { commit, calls: () => calls, mostInFlight: () => mostInFlight, answer: () => answers.shift()?.() };
}

function recordingLogger(): MessagingLogger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, info: () => undefined, error: () => undefined, warn: (_fields, message) => warnings.push(message) };
}

describe('ConsumerOffsetWriter', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('given slices finishing within the delay, when the delay passes, then one commit covers them all, and none before', async () => {
    const writer = new ConsumerOffsetWriter(100, recordingLogger());
    const { commit, calls } = commits();
    writer.later(commit);
    await jest.advanceTimersByTimeAsync(40);
    writer.later(commit);
    writer.later(commit);
    await jest.advanceTimersByTimeAsync(59);
    expect(calls()).toBe(0);
    await jest.advanceTimersByTimeAsync(1);
    expect(calls()).toBe(1);
    await jest.advanceTimersByTimeAsync(500);
    expect(calls()).toBe(1);
  });

  it('given a slice finished after a commit, when the delay passes again, then it gets a commit of its own', async () => {
    const writer = new ConsumerOffsetWriter(100, recordingLogger());
    const { commit, calls } = commits();
    writer.later(commit);
    await jest.advanceTimersByTimeAsync(100);
    writer.later(commit);
    await jest.advanceTimersByTimeAsync(100);
    expect(calls()).toBe(2);
  });

  it('given the newest commit asked for, when it is written, then that one runs (the offsets it reads are the newest)', async () => {
    const writer = new ConsumerOffsetWriter(100, recordingLogger());
    const older = commits();
    const newer = commits();
    writer.later(older.commit);
    writer.later(newer.commit);
    await jest.advanceTimersByTimeAsync(100);
    expect([older.calls(), newer.calls()]).toEqual([0, 1]);
  });

  it('given a pending commit, when flushed (a stop), then it is written at once and the flush resolves after the answer', async () => {
    const writer = new ConsumerOffsetWriter(100, recordingLogger());
    const { commit, calls, answer } = commits({ held: true });
    writer.later(commit);
    let flushed = false;
    const flushing = writer.flush().then(() => (flushed = true));
    await jest.advanceTimersByTimeAsync(0);
    expect(calls()).toBe(1);
    expect(flushed).toBe(false);
    answer();
    await flushing;
    expect(flushed).toBe(true);
    // Nothing is left for the timer.
    await jest.advanceTimersByTimeAsync(500);
    expect(calls()).toBe(1);
  });

  it.each<[string, (writer: ConsumerOffsetWriter, commit: () => Promise<void>) => Promise<void>]>([
    [
      'due by the delay',
      async (writer, commit) => {
        writer.later(commit);
        await jest.advanceTimersByTimeAsync(100);
      },
    ],
    [
      // A slice waiting on a retry: flushed with it, written at once after the one in flight.
      'asked for now',
      async (writer, commit) => {
        void writer.flush(commit);
        await jest.advanceTimersByTimeAsync(0);
      },
    ],
  ])(
    'given a commit in flight, when another is %s, then it waits for the first answer: one commit in flight at a time',
    async (_, askSecond) => {
      const writer = new ConsumerOffsetWriter(100, recordingLogger());
      const { commit, calls, mostInFlight, answer } = commits({ held: true });
      writer.later(commit);
      await jest.advanceTimersByTimeAsync(100);
      await askSecond(writer, commit);
      expect(calls()).toBe(1);
      answer();
      await jest.advanceTimersByTimeAsync(0);
      expect(calls()).toBe(2);
      answer();
      await writer.flush();
      expect(mostInFlight()).toBe(1);
    },
  );

  it('given nothing pending, when flushed, then nothing is committed', async () => {
    const writer = new ConsumerOffsetWriter(100, recordingLogger());
    const { commit, calls } = commits();
    await writer.flush();
    writer.later(commit);
    writer.cancel();
    await writer.flush();
    await jest.advanceTimersByTimeAsync(500);
    expect(calls()).toBe(0);
  });

  it('given a commit the broker refuses, when written, then it is logged, nothing throws, and the next commit still goes out', async () => {
    const logger = recordingLogger();
    const writer = new ConsumerOffsetWriter(100, logger);
    const failing = commits({ fail: true });
    writer.later(failing.commit);
    await expect(writer.flush()).resolves.toBeUndefined();
    expect(logger.warnings).toEqual(['offset commit failed; its messages come again']);
    const next = commits();
    writer.later(next.commit);
    await writer.flush();
    expect(next.calls()).toBe(1);
  });
});
