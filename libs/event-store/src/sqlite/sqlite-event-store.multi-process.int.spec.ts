import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { eventually } from '@wts/testing';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { comparePositions, type RecordedEvent } from '../event-store.port';
import { SqliteEventStore } from './sqlite-event-store.adapter';

/** Real OS processes sharing one database file: the ingress / dispatcher deployment. */
const WORKER = join(__dirname, 'testing', 'append-worker.js');

interface ContendSummary {
  readonly own: number;
  readonly shared: number;
  readonly raceWins: number[];
  readonly raceConflicts: number;
}

interface Worker {
  readonly child: ChildProcessWithoutNullStreams;
  /** Resolves with each stdout line as it arrives, in order. */
  nextLine(): Promise<string>;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
}

function startWorker(job: object): Worker {
  const child = spawn(process.execPath, [WORKER, JSON.stringify(job)], { cwd: process.cwd() });
  const lines: string[] = [];
  const waiting: ((line: string) => void)[] = [];
  let buffer = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    const parts = buffer.split('\n');
    buffer = parts.pop() ?? '';
    for (const line of parts) {
      const waiter = waiting.shift();
      if (waiter) waiter(line);
      else lines.push(line);
    }
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal, stderr })),
  );
  const nextLine = (): Promise<string> => {
    const line = lines.shift();
    if (line !== undefined) return Promise.resolve(line);
    return Promise.race([
      new Promise<string>((resolve) => waiting.push(resolve)),
      exited.then(({ code, signal, stderr: text }) => {
        throw new Error(`worker exited (${code ?? signal}) before writing a line: ${text}`);
      }),
    ]);
  };
  return { child, nextLine, exited };
}

describe('SqliteEventStore across OS processes', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'wts-event-store-mp-'));
    file = join(dir, 'events.db');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('serializes concurrent appends from two processes and a third process subscribes to them', async () => {
    const count = 150;
    const races = 50;
    const parent = SqliteEventStore.open(file);
    const seen: RecordedEvent[] = [];
    const subscription = parent.subscribeToAll({}, (event) => void seen.push(event));
    try {
      const workers = ['p1', 'p2'].map((tag) => startWorker({ mode: 'contend', file, tag, count, shared: 'shared-1', races }));
      for (const worker of workers) expect(await worker.nextLine()).toBe('ready');
      for (const worker of workers) worker.child.stdin.write('go\n');
      const summaries = await Promise.all(workers.map(async (worker) => JSON.parse(await worker.nextLine()) as ContendSummary));
      for (const worker of workers) expect(await worker.exited).toMatchObject({ code: 0 });

      for (const summary of summaries) expect(summary).toMatchObject({ own: count, shared: count });
      const wins = summaries.flatMap((summary) => summary.raceWins).sort((a, b) => a - b);
      expect(wins).toEqual(Array.from({ length: races }, (_, index) => index));
      expect(summaries.reduce((total, summary) => total + summary.raceConflicts, 0)).toBe(races);

      const shared = await parent.readStream('shared-1');
      expect(shared.map((event) => event.revision)).toEqual(Array.from({ length: 2 * count }, (_, i) => BigInt(i)));
      for (let index = 0; index < races; index += 1) expect(await parent.readStream(`race-${index}`)).toHaveLength(1);

      const total = 4 * count + races;
      await eventually(() => seen.length >= total, 5000, `${total} events seen`, 10);
      expect(seen).toHaveLength(total);
      for (let index = 1; index < seen.length; index += 1) {
        expect(comparePositions(seen[index - 1].position, seen[index].position)).toBeLessThan(0);
      }
    } finally {
      await subscription.stop();
      await parent.close();
    }
  }, 30_000);

  it('lets several processes open one new file at the same moment (schema created once, no SQLITE_BUSY)', async () => {
    const rounds = 100;
    const workers = [1, 2, 3].map(() => startWorker({ mode: 'open-rounds' }));
    try {
      for (const worker of workers) expect(await worker.nextLine()).toBe('ready');
      const failures: string[] = [];
      for (let round = 0; round < rounds; round += 1) {
        const job = JSON.stringify({ file: join(dir, `round-${round}`, 'events.sqlite'), at: Date.now() + 30 });
        for (const worker of workers) worker.child.stdin.write(`${job}\n`);
        for (const worker of workers) {
          const line = await worker.nextLine();
          if (line !== 'ok') failures.push(`round ${round}: ${line}`);
        }
      }
      expect(failures).toEqual([]);
    } finally {
      for (const worker of workers) worker.child.stdin.end();
      await Promise.all(workers.map((worker) => worker.exited));
    }
    // 300 opens of a new file by three processes: about 15 s alone, several times that on a loaded machine.
  }, 180_000);

  it('keeps an append that resolved even when the process is killed right after (no close)', async () => {
    const id = randomUUID();
    const worker = startWorker({ mode: 'append-and-die', file, stream: 'durable-1', id });

    expect(await worker.nextLine()).toBe('appended');
    expect(await worker.exited).toMatchObject({ signal: 'SIGKILL' });

    const store = SqliteEventStore.open(file);
    try {
      expect((await store.readStream('durable-1')).map((event) => event.id)).toEqual([id]);
    } finally {
      await store.close();
    }
  }, 15_000);
});
