import { eventually } from '@wts/testing';
import { useIngressTestApp } from '../../../test/support/ingress-test-app';

type Json = Record<string, unknown>;
interface Parked {
  readonly source_event_id: string;
  readonly delivery_id: string | null;
  readonly error: string;
}

/**
 * The runbook's incident workflow over the admin API, with the dispatcher and its release drain
 * in-process: hold, change the routine, release — the held deliveries run with the fix, and one the
 * routine as it now stands refuses is parked with that reason, never run against the old routine.
 * A release can instead discard what the hold kept (parked, re-dispatchable, on the audit trail).
 */
describe('a release judges the held deliveries as things stand at the release (admin API)', () => {
  const t = useIngressTestApp();

  const parkedOf = async (deliveryIds: readonly string[], count: number): Promise<Parked[]> =>
    eventually(
      async () => {
        const page = (await t.adminOk('GET', '/admin/parked?limit=200', undefined, 200)) as { parked: Parked[] };
        const mine = page.parked.filter((park) => park.delivery_id !== null && deliveryIds.includes(park.delivery_id));
        return mine.length === count ? mine : undefined;
      },
      10_000,
      `${count} parked deliveries listed`,
    );

  const send = async (hook: { webhookId: string; secret: string }, body: Json): Promise<string> => {
    const answer = await t.deliver(hook, { body: JSON.stringify(body) });
    expect(answer.status).toBe(202);
    return (answer.json as { delivery_id: string }).delivery_id;
  };

  it('runs with the instructions and tools set during the hold, and parks the account the routine no longer covers', async () => {
    await t.startDispatcher();
    try {
      const a = await t.createAccount();
      const b = await t.createAccount();
      const routine = await t.createRoutine({
        instructions: 'OLD',
        tools: [{ name: 'mail.send', sends_externally: true }],
        account_scope: [a.id, b.id],
      });
      const routineId = routine.id as string;
      const webhook = await t.enableWebhook(routineId, a.email, true);
      const hook = { webhookId: webhook.webhook_id, secret: webhook.secret };
      await t.adminOk('POST', `/admin/routines/${routineId}/webhook/hold`, {}, 200);
      const forB = await send(hook, { account_email: b.email, data: { n: 1 } });
      const forA = await send(hook, { account_email: a.email, data: { n: 2 } });

      await t.adminOk('PATCH', `/admin/routines/${routineId}`, { account_scope: [a.id], instructions: 'NEW', tools: [] }, 200);
      await t.patchAccount(b.id, { active: false });
      await t.adminOk('POST', `/admin/routines/${routineId}/webhook/release`, {}, 200);

      const [park] = await parkedOf([forB, forA], 1);
      expect(park).toMatchObject({ delivery_id: forB, error: expect.stringMatching(/^account_out_of_scope: /) });
      const runs = await eventually(
        async () => ((await t.createdRuns(routineId)).length === 1 ? t.createdRuns(routineId) : undefined),
        10_000,
        'the run',
      );
      expect(runs.map((run) => (run.data as { deliveryId: string }).deliveryId)).toEqual([forA]);
      const runId = (runs[0]!.data as { runId: string }).runId;
      const run = (await t.adminOk('GET', `/admin/runs/${runId}`, undefined, 200)) as { routine: Json };
      expect(run.routine).toMatchObject({ instructions: 'NEW', tools: [] });

      // Fixing the cause, then re-dispatching, runs it as things stand at the re-dispatch.
      await t.adminOk('PATCH', `/admin/routines/${routineId}`, { account_scope: [a.id, b.id] }, 200);
      await t.patchAccount(b.id, { active: true });
      const redispatched = (await t.adminOk('POST', '/admin/parked/redispatch', { source_event_ids: [park!.source_event_id] }, 200)) as {
        results: Json[];
      };
      expect(redispatched.results).toEqual([expect.objectContaining({ outcome: 'created' })]);
      expect(await t.createdRuns(routineId)).toHaveLength(2);
    } finally {
      await t.stopDispatcher();
    }
  });

  it('release with discard parks every held delivery (no run), records who and how many, and a re-dispatch runs one', async () => {
    await t.startDispatcher();
    try {
      const hook = await t.setupWebhook();
      const path = `/admin/routines/${hook.routineId}/webhook`;
      await t.adminOk('POST', `${path}/hold`, {}, 200);
      const kept = [await send(hook, { data: { n: 1 } }), await send(hook, { data: { n: 2 } })];
      await eventually(
        async () => (((await t.adminOk('GET', path, undefined, 200)) as Json).held_deliveries === 2 ? true : undefined),
        10_000,
        'two held deliveries counted',
      );
      const refused = await t.admin('POST', `${path}/release`, { discard: 'yes' });
      expect(refused.status).toBe(400);
      const looked = (await t.adminOk('GET', path, undefined, 200)) as Json;
      expect(looked).toMatchObject({ held: true, last_release: null });
      // A discard names the hold it discards: another one (a page left open over a release and a new hold) is refused.
      const stale = await t.admin('POST', `${path}/release`, { discard: true, held_since: '2020-01-01T00:00:00.000Z' });
      expect(stale.status).toBe(409);
      expect(stale.json).toMatchObject({ code: 'hold_changed' });

      // The view says the hold ended with a discard: what is still counted is being parked, not run.
      expect(await t.adminOk('POST', `${path}/release`, { discard: true, held_since: looked.held_since }, 200)).toMatchObject({
        held: false,
        last_release: 'discard',
      });
      // Not held any more: a second discard (or one after the hold expired and ran its deliveries) discards nothing, and says so.
      const late = await t.admin('POST', `${path}/release`, { discard: true });
      expect(late.status).toBe(409);
      expect(late.json).toMatchObject({ code: 'webhook_not_held' });
      const parked = await parkedOf(kept, 2);
      for (const park of parked) expect(park.error).toMatch(/^discarded_by_operator: /);
      const after = await send(hook, { data: { n: 3 } }); // released: runs at once
      await eventually(async () => ((await t.createdRuns(hook.routineId)).length === 1 ? true : undefined), 10_000, 'the next run');
      const runs = await t.createdRuns(hook.routineId);
      expect(runs.map((run) => (run.data as { deliveryId: string }).deliveryId)).toEqual([after]);

      const trail = await eventually(
        async () => {
          const page = (await t.adminOk('GET', `/admin/audit?routine_id=${hook.routineId}`, undefined, 200)) as { entries: Json[] };
          return page.entries.find((entry) => entry.action === 'webhook.release');
        },
        10_000,
        'the release on the audit trail',
      );
      expect(trail).toMatchObject({ actor: { kind: 'bootstrap' }, detail: 'discarded 2 held deliveries' });

      const mistaken = parked.find((park) => park.delivery_id === kept[0])!;
      const redispatched = (await t.adminOk('POST', '/admin/parked/redispatch', { source_event_ids: [mistaken.source_event_id] }, 200)) as {
        results: Json[];
      };
      expect(redispatched.results).toEqual([expect.objectContaining({ outcome: 'created', detail: null })]);
      expect(await t.createdRuns(hook.routineId)).toHaveLength(2);
    } finally {
      await t.stopDispatcher();
    }
  });
});
