import type { RecordedEvent } from '../event-store.port';
import { expectGlobalOrder, ids, newEvent, type ContractContext } from './contract.fixtures';

function streamsOf(events: readonly RecordedEvent[]): string[] {
  return events.map((event) => event.streamId);
}

export function readContract(context: () => ContractContext): void {
  describe('read', () => {
    it('reads a missing stream as an empty array', async () => {
      const { subject, ns } = context();
      expect(await subject.store.readStream(`${ns}nothing-here`)).toEqual([]);
    });

    it('reads a stream from a revision, at most maxCount events', async () => {
      const { subject, ns } = context();
      const events = [newEvent('E0'), newEvent('E1'), newEvent('E2'), newEvent('E3')];
      await subject.store.append(`${ns}paged`, events, 'no_stream');
      const read = async (options: { fromRevision?: bigint; maxCount?: number }): Promise<string[]> =>
        ids(await subject.store.readStream(`${ns}paged`, options));

      expect(await read({})).toEqual(ids(events));
      expect(await read({ fromRevision: 2n })).toEqual(ids(events.slice(2)));
      expect(await read({ fromRevision: 1n, maxCount: 2 })).toEqual(ids(events.slice(1, 3)));
      expect(await read({ maxCount: 1 })).toEqual(ids(events.slice(0, 1)));
      expect(await read({ fromRevision: 4n })).toEqual([]);
      expect(await read({ maxCount: 0 })).toEqual([]);
      expect((await subject.store.readStream(`${ns}paged`, { fromRevision: 3n }))[0].revision).toBe(3n);
      expect(await subject.store.readStream(`${ns}missing`, { fromRevision: 2n })).toEqual([]);
    });

    it('tells the head revision of each stream, -1 for a stream that does not exist', async () => {
      const { subject, ns } = context();
      await subject.store.append(`${ns}one`, [newEvent()], 'no_stream');
      await subject.store.append(`${ns}three`, [newEvent(), newEvent(), newEvent()], 'no_stream');

      const heads = await subject.store.streamHeads([`${ns}three`, `${ns}none`, `${ns}one`, `${ns}three`]);
      expect(heads.get(`${ns}one`)).toBe(0n);
      expect(heads.get(`${ns}three`)).toBe(2n);
      expect(heads.get(`${ns}none`)).toBe(-1n);
      expect((await subject.store.streamHeads([])).size).toBe(0);

      await subject.store.append(`${ns}one`, [newEvent()], 0n);
      expect((await subject.store.streamHeads([`${ns}one`])).get(`${ns}one`)).toBe(1n);
    });

    it('reads the first event of each stream that exists, each stream once, in one call', async () => {
      const { subject, ns } = context();
      const [a0, a1, b0] = [newEvent('A0'), newEvent('A1'), newEvent('B0')];
      await subject.store.append(`${ns}first-a`, [a0, a1], 'no_stream');
      await subject.store.append(`${ns}first-b`, [b0], 'no_stream');

      const first = await subject.store.readFirstEvents([`${ns}first-b`, `${ns}first-none`, `${ns}first-a`, `${ns}first-b`]);
      expect([...first.keys()].sort()).toEqual([`${ns}first-a`, `${ns}first-b`]);
      const a = first.get(`${ns}first-a`);
      expect(a).toMatchObject({ id: a0.id, streamId: `${ns}first-a`, revision: 0n, type: 'A0', data: a0.data });
      // The event as readStream reads it, position and all.
      expect(a).toEqual((await subject.store.readStream(`${ns}first-a`, { maxCount: 1 }))[0]);
      expect(first.get(`${ns}first-b`)?.id).toBe(b0.id);
      expect((await subject.store.readFirstEvents([])).size).toBe(0);
    });

    it('reads $all in global order, strictly after `after`, at most `limit`', async () => {
      const { subject, ns } = context();
      const [a1, b1, a2] = [newEvent('A1'), newEvent('B1'), newEvent('A2')];
      await subject.store.append(`${ns}a`, [a1], 'no_stream');
      await subject.store.append(`${ns}b`, [b1], 'no_stream');
      await subject.store.append(`${ns}a`, [a2], 0n);
      const filter = { streamPrefixes: [ns] };

      const all = await subject.store.readAll({ limit: 100, filter });
      expect(ids(all)).toEqual(ids([a1, b1, a2]));
      expectGlobalOrder(all);

      expect(ids(await subject.store.readAll({ after: all[0].position, limit: 100, filter }))).toEqual(ids([b1, a2]));
      expect(ids(await subject.store.readAll({ after: all[2].position, limit: 100, filter }))).toEqual([]);
      expect(ids(await subject.store.readAll({ limit: 2, filter }))).toEqual(ids([a1, b1]));
      expect(await subject.store.readAll({ limit: 0, filter })).toEqual([]);
    });

    it('reads $all without a filter, including every stream', async () => {
      const { subject, ns } = context();
      const first = await subject.store.append(`${ns}x`, [newEvent()], 'no_stream');
      const later = [newEvent(), newEvent()];
      await subject.store.append(`${ns}y`, [later[0]], 'no_stream');
      await subject.store.append(`${ns}z`, [later[1]], 'no_stream');
      if (first.kind !== 'appended') throw new Error('expected an append');

      const read = await subject.store.readAll({ after: first.position, limit: 1000 });

      expectGlobalOrder(read);
      expect(ids(read.filter((event) => event.streamId.startsWith(ns)))).toEqual(ids(later));
    });

    it('filters by literal stream-name prefixes (no wildcards, no partial categories)', async () => {
      const { subject, ns } = context();
      const names = ['delivery-1', 'deliveryx-1', 'delivery_1', 'run-1', 'a%c', 'abc', 'delivery-2'];
      for (const name of names) await subject.store.append(`${ns}${name}`, [newEvent()], 'no_stream');
      const read = async (...prefixes: string[]): Promise<string[]> =>
        streamsOf(await subject.store.readAll({ limit: 100, filter: { streamPrefixes: prefixes.map((p) => `${ns}${p}`) } })).map((stream) =>
          stream.slice(ns.length),
        );

      expect(await read('delivery-')).toEqual(['delivery-1', 'delivery-2']);
      expect(await read('delivery_')).toEqual(['delivery_1']);
      expect(await read('a%')).toEqual(['a%c']);
      expect(await read('delivery-', 'run-')).toEqual(['delivery-1', 'run-1', 'delivery-2']);
      expect(await read('delivery')).toEqual(['delivery-1', 'deliveryx-1', 'delivery_1', 'delivery-2']);
      expect(await subject.store.readAll({ limit: 100, filter: { streamPrefixes: [] } })).toEqual([]);
    });
  });
}
