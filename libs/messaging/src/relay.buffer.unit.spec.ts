import { RelayBuffer } from './relay.buffer';
import type { RelayEntry } from './relay.entry';

function entry(n: number, bytes: number): RelayEntry {
  return {
    position: { commit: BigInt(n), prepare: BigInt(n) },
    eventId: `e-${n}`,
    at: n,
    bytes,
    source: { sourceEventId: `e-${n}`, sourceStream: 's', sourceType: 'T' },
  };
}

const settled = async <T>(promise: Promise<T>): Promise<T | 'pending'> =>
  Promise.race([promise, new Promise<'pending'>((resolve) => setImmediate(() => resolve('pending')))]);

describe('RelayBuffer', () => {
  it('given entries, when a batch is taken, then it is at most maxBatchSize events and maxBatchBytes, but always one', async () => {
    const buffer = new RelayBuffer({ maxBatchSize: 2, maxBatchBytes: 100, maxBufferBytes: 1000 });
    for (const [n, bytes] of [
      [1, 150],
      [2, 10],
      [3, 10],
      [4, 10],
    ])
      await buffer.add(entry(n, bytes));
    expect(buffer.nextBatch().map((e) => e.eventId)).toEqual(['e-1']);
    buffer.remove(buffer.nextBatch());
    expect(buffer.nextBatch().map((e) => e.eventId)).toEqual(['e-2', 'e-3']);
    expect(buffer.fullBatchBuffered()).toBe(true);
    expect(buffer.oldestAt()).toBe(2);
  });

  it('given a buffer over its bytes, when another entry is added, then it waits until a batch is removed', async () => {
    const buffer = new RelayBuffer({ maxBatchSize: 10, maxBatchBytes: 100, maxBufferBytes: 100 });
    await buffer.add(entry(1, 80));
    const adding = buffer.add(entry(2, 30));
    expect(await settled(adding)).toBe('pending');
    buffer.remove(buffer.nextBatch());
    expect(await adding).toBe(true);
    expect(buffer.length).toBe(1);
  });

  it('given an add waiting for room, when the buffer closes, then the entry is not added', async () => {
    const buffer = new RelayBuffer({ maxBatchSize: 1, maxBatchBytes: 100, maxBufferBytes: 1000 });
    await buffer.add(entry(1, 1));
    await buffer.add(entry(2, 1));
    const adding = buffer.add(entry(3, 1));
    const waiting = buffer.whenAdded();
    buffer.close();
    expect(await adding).toBe(false);
    await waiting;
    expect(buffer.length).toBe(2);
  });
});
