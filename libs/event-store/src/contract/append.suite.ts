import { comparePositions, EventStoreUnavailableError, type AppendResult } from '../event-store.port';
import { ids, newEvent, newEvents, type ContractContext } from './contract.fixtures';

function expectAppended(result: AppendResult, nextRevision: bigint): void {
  expect(result).toMatchObject({ kind: 'appended', nextRevision });
}

export function appendContract(context: () => ContractContext, globallyUniqueEventIds: boolean): void {
  describe('append', () => {
    it('appends to a new stream with no_stream and reads the events back in order', async () => {
      const { subject, ns } = context();
      const stream = `${ns}order-1`;
      const events = [newEvent('Placed', { total: 12.5, lines: [{ sku: 'a' }] }), newEvent('Paid', { ok: true })];

      const result = await subject.store.append(stream, events, 'no_stream');

      expectAppended(result, 1n);
      const read = await subject.store.readStream(stream);
      expect(ids(read)).toEqual(ids(events));
      expect(read.map((event) => event.revision)).toEqual([0n, 1n]);
      expect(read[0]).toMatchObject({
        streamId: stream,
        type: 'Placed',
        data: { total: 12.5, lines: [{ sku: 'a' }] },
        metadata: events[0].metadata,
      });
      expect(read[0].createdAt).toBeInstanceOf(Date);
      expect(comparePositions(read[0].position, read[1].position)).toBeLessThan(0);
    });

    it('returns conflicts as values, with the actual revision', async () => {
      const { subject, ns } = context();
      const existing = `${ns}existing`;
      const missing = `${ns}missing`;
      await subject.store.append(existing, newEvents(2), 'no_stream');

      const cases: [string, 'no_stream' | 'stream_exists' | bigint, bigint][] = [
        [existing, 'no_stream', 1n],
        [missing, 'stream_exists', -1n],
        [existing, 0n, 1n],
        [existing, 2n, 1n],
        [missing, 0n, -1n],
      ];
      for (const [streamId, expected, actualRevision] of cases) {
        const result = await subject.store.append(streamId, [newEvent()], expected);
        expect(result).toEqual({ kind: 'conflict', streamId, expected, actualRevision });
      }
      expect(await subject.store.readStream(existing)).toHaveLength(2);
      expect(await subject.store.readStream(missing)).toEqual([]);
    });

    it('appends with the correct expected revision and with stream_exists', async () => {
      const { subject, ns } = context();
      const stream = `${ns}counter`;
      await subject.store.append(stream, newEvents(2), 'no_stream');

      expectAppended(await subject.store.append(stream, newEvents(2), 1n), 3n);
      expectAppended(await subject.store.append(stream, [newEvent()], 'stream_exists'), 4n);
      expect((await subject.store.readStream(stream)).map((event) => event.revision)).toEqual([0n, 1n, 2n, 3n, 4n]);
    });

    it("appends with 'any' whether the stream exists or not", async () => {
      const { subject, ns } = context();
      const stream = `${ns}any`;
      expectAppended(await subject.store.append(stream, [newEvent()], 'any'), 0n);
      expectAppended(await subject.store.append(stream, newEvents(2), 'any'), 2n);
    });

    it('treats a retry with the same event ids as success and stores no duplicate', async () => {
      const { subject, ns } = context();
      const stream = `${ns}retry`;
      const events = newEvents(2);
      const first = await subject.store.append(stream, events, 'no_stream');
      await subject.store.append(stream, [newEvent()], 1n);

      const retry = await subject.store.append(stream, events, 'no_stream');
      const retryWithAny = await subject.store.append(stream, events, 'any');

      expectAppended(retry, 1n);
      expectAppended(retryWithAny, 1n);
      expectAppended(first, 1n);
      const all = await subject.store.readAll({ limit: 1000, filter: { streamPrefixes: [ns] } });
      expect(all).toHaveLength(3);
    });

    it('treats a retry after a revision as success', async () => {
      const { subject, ns } = context();
      const stream = `${ns}retry-rev`;
      await subject.store.append(stream, [newEvent()], 'no_stream');
      const events = newEvents(2);
      expectAppended(await subject.store.append(stream, events, 0n), 2n);

      expectAppended(await subject.store.append(stream, events, 0n), 2n);
      expect(await subject.store.readStream(stream)).toHaveLength(3);
    });

    if (globallyUniqueEventIds)
      it('rejects event ids that already exist in another stream (a bug, not a 503)', async () => {
        const { subject, ns } = context();
        const event = newEvent();
        await subject.store.append(`${ns}first`, [event], 'no_stream');

        const attempt = subject.store.append(`${ns}second`, [event], 'any');

        await expect(attempt).rejects.toThrow(event.id);
        await expect(attempt).rejects.not.toBeInstanceOf(EventStoreUnavailableError);
        expect(await subject.store.readStream(`${ns}second`)).toEqual([]);
      });

    it('checks only the expected revision when appending no events', async () => {
      const { subject, ns } = context();
      const stream = `${ns}empty`;
      expectAppended(await subject.store.append(stream, [], 'no_stream'), -1n);
      expect(await subject.store.readStream(stream)).toEqual([]);
      await subject.store.append(stream, [newEvent()], 'no_stream');

      expectAppended(await subject.store.append(stream, [], 0n), 0n);
      expect(await subject.store.append(stream, [], 'no_stream')).toMatchObject({
        kind: 'conflict',
        actualRevision: 0n,
      });
    });

    it('lets exactly one of concurrent no_stream appends to one stream win', async () => {
      const { subject, ns } = context();
      const stream = `${ns}race`;

      const results = await Promise.all(Array.from({ length: 10 }, () => subject.store.append(stream, [newEvent()], 'no_stream')));

      expect(results.filter((result) => result.kind === 'appended')).toHaveLength(1);
      const conflicts = results.filter((result) => result.kind === 'conflict');
      expect(conflicts).toHaveLength(9);
      for (const conflict of conflicts) expect(conflict).toMatchObject({ actualRevision: 0n });
      expect(await subject.store.readStream(stream)).toHaveLength(1);
    });

    it('decides concurrent appends (which may share one commit) each as if it ran alone', async () => {
      const { subject, ns } = context();
      const { store } = subject;
      const retried = newEvents(2);
      await store.append(`${ns}chain`, [newEvent()], 'no_stream');
      const sent = [
        store.append(`${ns}solo-a`, [newEvent()], 'no_stream'),
        store.append(`${ns}dup`, retried, 'no_stream'),
        store.append(`${ns}dup`, retried, 'no_stream'), // the same ids again: an idempotent retry, not a conflict
        store.append(`${ns}chain`, [newEvent()], 0n),
        store.append(`${ns}chain`, [newEvent()], 0n), // the second of two writers that read revision 0
        store.append(`${ns}solo-b`, [newEvent()], 'stream_exists'),
        store.append(`${ns}solo-c`, [newEvent()], 'any'),
      ];
      const [soloA, dupFirst, dupRetry, chainFirst, chainSecond, soloB, soloC] = await Promise.all(sent);

      expectAppended(soloA, 0n);
      expectAppended(dupFirst, 1n);
      expect(dupRetry).toEqual(dupFirst);
      // Which of the two chain writers wins is the order they reached the store in; exactly one does.
      const chain = [chainFirst, chainSecond];
      expect(chain.filter((result) => result.kind === 'appended')).toHaveLength(1);
      expect(chain.find((result) => result.kind === 'conflict')).toMatchObject({ expected: 0n, actualRevision: 1n });
      expect(soloB).toMatchObject({ kind: 'conflict', expected: 'stream_exists', actualRevision: -1n });
      expectAppended(soloC, 0n);
      expect(ids(await store.readStream(`${ns}dup`))).toEqual(ids(retried));
      expect(await store.readStream(`${ns}chain`)).toHaveLength(2);
      expect(await store.readStream(`${ns}solo-b`)).toEqual([]);
    });

    it('refuses one bad append among concurrent ones without failing the others', async () => {
      const { subject, ns } = context();
      const { store } = subject;
      const reused = newEvent();
      await store.append(`${ns}first-home`, [reused], 'no_stream');
      const results = await Promise.allSettled([
        store.append(`${ns}fine-1`, [newEvent()], 'no_stream'),
        // The same event id a second time at another place: never an idempotent retry.
        store.append(`${ns}first-home`, [reused, newEvent()], 'any'),
        store.append(`${ns}fine-2`, [newEvent()], 'no_stream'),
      ]);
      expect(results[0]).toMatchObject({ status: 'fulfilled', value: { kind: 'appended' } });
      expect(results[1].status).toBe('rejected');
      expect(results[2]).toMatchObject({ status: 'fulfilled', value: { kind: 'appended' } });
      expect(await store.readStream(`${ns}first-home`)).toHaveLength(1);
    });

    it('returns a position from which reading $all skips the appended events', async () => {
      const { subject, ns } = context();
      const result = await subject.store.append(`${ns}pos`, newEvents(3), 'no_stream');
      if (result.kind !== 'appended') throw new Error('expected an append');

      const after = await subject.store.readAll({ after: result.position, limit: 100, filter: { streamPrefixes: [ns] } });

      expect(after).toEqual([]);
      const head = await subject.store.headPosition();
      if (!head) throw new Error('headPosition() is undefined after an append');
      expect(comparePositions(head, result.position)).toBeGreaterThanOrEqual(0);
    });
  });
}
