/** What the read-model stores' upgrade specs check alike, SQLite and PostgreSQL. */
import type { ReadModelStore } from '../../libs/read-models/src/read-model.port';

/**
 * A store upgraded from schema version 1, which held delivery d1 of routine r1 (webhook w1) and the
 * checkpoint at 5: both kept, and the audit trail the later versions add takes an entry of w1's.
 */
export async function expectUpgradedFromVersion1(store: ReadModelStore): Promise<void> {
  expect(await store.loadCheckpoint('read-models')).toEqual({ commit: 5n, prepare: 5n });
  expect((await store.deliveries('r1', { limit: 10 })).items.map((row) => row.delivery_id)).toEqual(['d1']);
  const mapping = { kind: 'webhook_routine', position: { commit: 6n, prepare: 6n }, row: { webhookId: 'w1', routineId: 'r1' } } as const;
  const entry = {
    entryId: 'e1',
    at: '2024-05-01T12:00:01.000Z',
    actor: null,
    action: 'webhook.rotate',
    targetType: 'webhook',
    targetId: 'w1',
    routineId: null,
    webhookId: 'w1',
    outcome: 'succeeded',
    traceId: null,
    detail: null,
    sourceAddress: null,
  } as const;
  const to = { commit: 7n, prepare: 7n };
  expect(await store.commit('read-models', [mapping, { kind: 'audit', position: to, row: entry }], { commit: 5n, prepare: 5n }, to)).toBe(
    true,
  );
  expect((await store.audit({ routineId: 'r1' }, { limit: 10 })).items).toEqual([{ ...entry, routineId: 'r1' }]);
}
