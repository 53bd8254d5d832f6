/// <reference types="jest" />
import { randomInt } from 'node:crypto';
import type { GlobalPosition } from '@wts/event-store';
import { InvalidCursorError, type DeliveryRow, type PayloadRemovalRow, type ProjectionChange } from '../read-model.port';
import type { ErasureCandidateSelection } from '../payload-selection';
import { at, delivery, deliveryRow, everything, listed, project, type Context } from './contract.fixtures';

/**
 * A year of its own for each test that selects by time (expiry or receipt): on a database shared
 * by a suite's tests, no other test's rows fall in it (the other tests' rows expire in 2124).
 */
let nextYear = 1100 + randomInt(0, 400);
const ownYear = (): number => nextYear++;

const removal = (row: PayloadRemovalRow, position: GlobalPosition): ProjectionChange => ({ kind: 'payload_removal', position, row });

/** Every page of the candidates of `selection`, `limit` kept rows read at a time. */
async function allCandidates(context: Context, selection: ErasureCandidateSelection, limit: number): Promise<string[]> {
  const ids: string[] = [];
  let after: string | null = null;
  for (let page = 0; page < 1000; page += 1) {
    const result = await context().store.erasureCandidates(selection, after, limit);
    expect(result.deliveryIds.length).toBeLessThanOrEqual(result.scanned);
    expect(result.scanned).toBeLessThanOrEqual(limit);
    ids.push(...result.deliveryIds);
    if (result.next === null) return ids;
    expect(result.scanned).toBe(limit);
    after = result.next;
  }
  throw new Error('erasure candidates did not end');
}

export function payloadContract(context: Context): void {
  describe('payload states', () => {
    it('lists each delivery with its payload kept and its expiry (null for a delivery from before payloads were kept apart)', async () => {
      const { store, ns, base } = context();
      const kept = deliveryRow(`${ns}-d1`, `${ns}-r`, { payload_expires_at: '2124-05-31T12:00:00.000Z' });
      const legacy = deliveryRow(`${ns}-d2`, `${ns}-r`, { payload_expires_at: null });
      await project(store, `${ns}:projector`, [delivery(kept, at(base + 1n)), delivery(legacy, at(base + 2n))]);

      expect(await everything((page) => store.deliveries(`${ns}-r`, page))).toEqual([listed(legacy), listed(kept)]);
      const states = await store.deliveryPayloadStates([kept.delivery_id, legacy.delivery_id, `${ns}-unknown`]);
      expect(Object.fromEntries(states)).toEqual({
        [kept.delivery_id]: { state: 'kept', expiresAt: '2124-05-31T12:00:00.000Z', removedAt: null },
        [legacy.delivery_id]: { state: 'kept', expiresAt: null, removedAt: null },
      });
    });

    it('a removal marks each listed delivery still kept with its reason and time: the first wins, a repeat and an unknown id change nothing', async () => {
      const { store, ns, base } = context();
      const name = `${ns}:projector`;
      const [d1, d2, d3] = [1, 2, 3].map((n) => deliveryRow(`${ns}-d${n}`, `${ns}-r`));
      await project(
        store,
        name,
        [d1, d2, d3].map((row, i) => delivery(row, at(base + BigInt(i)))),
      );
      const expired: PayloadRemovalRow = {
        deliveryIds: [d1.delivery_id, d2.delivery_id, `${ns}-unknown`],
        state: 'expired',
        removedAt: '2024-06-01T00:00:00.000Z',
      };
      await project(store, name, [removal(expired, at(base + 10n))]);
      await project(store, name, [
        removal({ deliveryIds: [d2.delivery_id, d3.delivery_id], state: 'erased', removedAt: '2024-06-02T00:00:00.000Z' }, at(base + 11n)),
      ]);
      // The same batch recorded again (a crash between the event and the overwrite).
      await project(store, name, [removal({ ...expired, removedAt: '2024-06-03T00:00:00.000Z' }, at(base + 12n))]);

      const removed = (row: DeliveryRow, state: 'expired' | 'erased', removedAt: string): unknown => ({
        ...listed(row),
        payload_state: state,
        payload_removed_at: removedAt,
      });
      expect(await everything((page) => store.deliveries(`${ns}-r`, page))).toEqual([
        removed(d3, 'erased', '2024-06-02T00:00:00.000Z'),
        removed(d2, 'expired', '2024-06-01T00:00:00.000Z'),
        removed(d1, 'expired', '2024-06-01T00:00:00.000Z'),
      ]);
      expect((await store.deliveryPayloadStates([`${ns}-unknown`])).size).toBe(0);
    });

    it('a batch is written in order: a removal after its delivery in the same batch removes it, one before it does not', async () => {
      const { store, ns, base } = context();
      const [d1, d2] = [1, 2].map((n) => deliveryRow(`${ns}-d${n}`, `${ns}-r`));
      const gone = (id: string): PayloadRemovalRow => ({ deliveryIds: [id], state: 'erased', removedAt: '2024-06-01T00:00:00.000Z' });
      await project(store, `${ns}:projector`, [
        delivery(d1, at(base + 1n)),
        removal(gone(d1.delivery_id), at(base + 2n)),
        removal(gone(d2.delivery_id), at(base + 3n)),
        delivery(d2, at(base + 4n)),
      ]);

      const states = await store.deliveryPayloadStates([d1.delivery_id, d2.delivery_id]);
      expect(states.get(d1.delivery_id)?.state).toBe('erased');
      expect(states.get(d2.delivery_id)?.state).toBe('kept');
    });

    it('reset clears the payload states with the rows: projecting the same changes again gives the same rows', async () => {
      const { store, ns, base } = context();
      const name = `${ns}:projector`;
      const d1 = deliveryRow(`${ns}-d1`, `${ns}-r`);
      const changes = [
        delivery(d1, at(base + 1n)),
        removal({ deliveryIds: [d1.delivery_id], state: 'expired', removedAt: '2024-06-01T00:00:00.000Z' }, at(base + 2n)),
      ];
      await project(store, name, changes);
      const before = await everything((page) => store.deliveries(`${ns}-r`, page));

      await store.reset(name);
      expect(await everything((page) => store.deliveries(`${ns}-r`, page))).toEqual([]);
      await project(store, name, changes);
      expect(await everything((page) => store.deliveries(`${ns}-r`, page))).toEqual(before);
      expect(before[0]).toMatchObject({ payload_state: 'expired', payload_removed_at: '2024-06-01T00:00:00.000Z' });
    });
  });

  describe('payloads due', () => {
    it('lists kept payloads expired at `now` (inclusive), oldest expiry first then by id, at most `limit`; removed and legacy ones never', async () => {
      const { store, ns, base } = context();
      const year = ownYear();
      const time = (rest: string): string => `${year}-${rest}Z`;
      const rows = [
        deliveryRow(`${ns}-b`, `${ns}-r`, { payload_expires_at: time('01-01T00:00:01.000') }),
        deliveryRow(`${ns}-a`, `${ns}-r`, { payload_expires_at: time('01-01T00:00:01.000') }),
        deliveryRow(`${ns}-c`, `${ns}-r`, { payload_expires_at: time('01-01T00:00:00.500') }),
        deliveryRow(`${ns}-later`, `${ns}-r`, { payload_expires_at: time('01-01T00:00:01.001') }),
        deliveryRow(`${ns}-removed`, `${ns}-r`, { payload_expires_at: time('01-01T00:00:00.000') }),
        deliveryRow(`${ns}-legacy`, `${ns}-r`, { payload_expires_at: null }),
      ];
      await project(store, `${ns}:projector`, [
        ...rows.map((row, i) => delivery(row, at(base + BigInt(i)))),
        removal({ deliveryIds: [`${ns}-removed`], state: 'expired', removedAt: time('01-01T00:00:00.100') }, at(base + 10n)),
      ]);
      const now = new Date(time('01-01T00:00:01.000'));

      expect(await store.payloadsDue(now, 100)).toEqual([`${ns}-c`, `${ns}-a`, `${ns}-b`]);
      expect(await store.payloadsDue(now, 2)).toEqual([`${ns}-c`, `${ns}-a`]);
      expect(await store.payloadsDue(new Date(time('01-01T00:00:00.499')), 100)).toEqual([]);
    });

    it.each([0, -1, 1.5, 10_001])('refuses the limit %p with RangeError', async (limit) => {
      await expect(context().store.payloadsDue(new Date(), limit)).rejects.toBeInstanceOf(RangeError);
    });

    it('refuses an invalid date with RangeError', async () => {
      await expect(context().store.payloadsDue(new Date(Number.NaN), 10)).rejects.toBeInstanceOf(RangeError);
    });
  });

  describe('erasure candidates', () => {
    /** Deliveries of two routines, two accounts and several times (one of them removed), in a year of the test's own. */
    async function seed(): Promise<{ ns: string; t: (rest: string) => string }> {
      const { store, ns, base } = context();
      const year = ownYear();
      const t = (rest: string): string => `${year}-${rest}Z`;
      const alice = { account_id: `${ns}-alice`, email: `Alice.${ns}@Example.com` };
      const bob = { account_id: `${ns}-bob`, email: `bob.${ns}@example.com` };
      const rows = [
        deliveryRow(`${ns}-1`, `${ns}-r1`, { received_at: t('03-01T00:00:00.000'), trigger_account: alice }),
        deliveryRow(`${ns}-2`, `${ns}-r1`, { received_at: t('03-01T00:00:01.000'), trigger_account: bob }),
        deliveryRow(`${ns}-3`, `${ns}-r2`, { received_at: t('03-01T00:00:01.000'), trigger_account: alice }),
        deliveryRow(`${ns}-4`, `${ns}-r1`, { received_at: t('03-01T00:00:02.000'), trigger_account: alice }),
        deliveryRow(`${ns}-5`, `${ns}-r1`, { received_at: t('03-01T00:00:03.000'), trigger_account: alice }),
        deliveryRow(`${ns}-6`, `${ns}-r1`, { received_at: t('03-01T00:00:00.500'), trigger_account: alice, payload_expires_at: null }),
      ];
      await project(store, `${ns}:projector`, [
        ...rows.map((row, i) => delivery(row, at(base + BigInt(i)))),
        removal({ deliveryIds: [`${ns}-5`], state: 'erased', removedAt: t('04-01T00:00:00.000') }, at(base + 10n)),
      ]);
      return { ns, t };
    }

    it('selects the kept payloads matching every selector given, by receipt time then id, across pages', async () => {
      const { ns, t } = await seed();
      const ids = (...n: number[]): string[] => n.map((i) => `${ns}-${i}`);

      expect(await allCandidates(context, { routineId: `${ns}-r1` }, 1000)).toEqual(ids(1, 6, 2, 4));
      const year = { receivedAfter: t('01-01T00:00:00.000'), receivedBefore: t('12-31T00:00:00.000') };
      expect(await allCandidates(context, { routineId: `${ns}-r1`, ...year }, 1)).toEqual(ids(1, 6, 2, 4));
      expect(await allCandidates(context, { triggerAccount: `ALICE.${ns.toUpperCase()}@example.COM`, ...year }, 2)).toEqual(
        ids(1, 6, 3, 4),
      );
      expect(await allCandidates(context, { triggerAccount: `alice.${ns}@example.com`, routineId: `${ns}-r1` }, 1000)).toEqual(
        ids(1, 6, 4),
      );
      // After inclusive, before exclusive; an offset or missing milliseconds name the same instants.
      const window = { receivedAfter: t('03-01T00:00:01.000'), receivedBefore: t('03-01T01:00:02+01:00').replace('Z', '') };
      expect(await allCandidates(context, window, 1)).toEqual(ids(2, 3));
      expect(await allCandidates(context, { ...window, routineId: `${ns}-r1` }, 1000)).toEqual(ids(2));
      expect(await allCandidates(context, { deliveryIds: ids(4, 3, 5, 1), routineId: `${ns}-r1` }, 1000)).toEqual(ids(1, 4));
      expect(await allCandidates(context, { deliveryIds: [...ids(2), `${ns}-unknown`] }, 1000)).toEqual(ids(2));
      expect(await allCandidates(context, { deliveryIds: [] }, 1000)).toEqual([]);
      expect(await allCandidates(context, { routineId: `${ns}-r1`, triggerAccount: 'nobody@example.com' }, 1000)).toEqual([]);
    });

    it('reads at most `limit` kept rows a page, in the receipt-time range: a window where none matches is an empty page with where to go on', async () => {
      const { ns, t } = await seed();
      const { store } = context();
      // The test's own year (other tests' rows are kept in the same table): kept, in receipt order,
      // 1, 6, 2, 3, 4 (5 was erased); of routine r2 only 3.
      const r2 = { routineId: `${ns}-r2`, receivedAfter: t('01-01T00:00:00.000'), receivedBefore: t('12-31T00:00:00.000') };
      const first = await store.erasureCandidates(r2, null, 2);
      expect(first).toMatchObject({ deliveryIds: [], scanned: 2 });
      const second = await store.erasureCandidates(r2, first.next, 2);
      expect(second).toMatchObject({ deliveryIds: [`${ns}-3`], scanned: 2 });
      expect(await store.erasureCandidates(r2, second.next, 2)).toEqual({ deliveryIds: [], scanned: 1, next: null });
      // A narrower range narrows the window itself: only 2 and 3 are read.
      const narrow = { ...r2, receivedAfter: t('03-01T00:00:01.000'), receivedBefore: t('03-01T00:00:02.000') };
      expect(await store.erasureCandidates(narrow, null, 10)).toEqual({ deliveryIds: [`${ns}-3`], scanned: 2, next: null });
    });

    it('refuses an empty selection, more than 1,000 ids, a time that is not one and a bad limit with RangeError', async () => {
      const { store, ns } = context();
      const refused = (selection: ErasureCandidateSelection, limit = 10): Promise<unknown> =>
        store.erasureCandidates(selection, null, limit);
      await expect(refused({})).rejects.toBeInstanceOf(RangeError);
      await expect(refused({ deliveryIds: Array.from({ length: 1001 }, (_, i) => `${ns}-${i}`) })).rejects.toBeInstanceOf(RangeError);
      await expect(refused({ receivedAfter: 'yesterday' })).rejects.toBeInstanceOf(RangeError);
      await expect(refused({ receivedBefore: '2024-02-30T00:00:00Z' })).rejects.toBeInstanceOf(RangeError);
      await expect(refused({ routineId: `${ns}-r` }, 0)).rejects.toBeInstanceOf(RangeError);
      await expect(refused({ routineId: `${ns}-r` }, 10_001)).rejects.toBeInstanceOf(RangeError);
      await expect(store.deliveryPayloadStates(Array.from({ length: 1001 }, (_, i) => `${i}`))).rejects.toBeInstanceOf(RangeError);
    });

    it('refuses a cursor it did not issue (tampered, or another listing’s) with InvalidCursorError', async () => {
      const { store, ns, base } = context();
      await project(
        store,
        `${ns}:projector`,
        [1, 2].map((n) => delivery(deliveryRow(`${ns}-d${n}`, `${ns}-r`), at(base + BigInt(n)))),
      );
      const listingCursor = (await store.deliveries(`${ns}-r`, { limit: 1 })).nextCursor;
      const { next } = await store.erasureCandidates({ routineId: `${ns}-r` }, null, 1);
      expect(next).not.toBeNull();
      for (const cursor of [listingCursor ?? '', `${next ?? ''}x`, 'not a cursor']) {
        await expect(store.erasureCandidates({ routineId: `${ns}-r` }, cursor, 1)).rejects.toBeInstanceOf(InvalidCursorError);
      }
    });
  });
}
