import { ParkDispatchUseCase, parkedDelivery, systemClock } from '@wts/application';
import type { DeliveryAccepted } from '@wts/contracts';
import type { RecordedEvent } from '@wts/event-store';
import { eventually } from '@wts/testing';
import { useIngressTestApp } from '../../../test/support/ingress-test-app';

type Json = Record<string, unknown>;

/**
 * Re-dispatch of parked deliveries through the admin API (the Config page's button), with no
 * dispatcher running so that nothing but the re-dispatch makes a run: a delivery parked after
 * repeated failures gets its run once (then "already created"), one that can never run is parked
 * again with its reason, one accepted while held waits for the release, an unknown park is named
 * so; the operator is on the audit trail.
 */
describe('POST /admin/parked/redispatch', () => {
  const t = useIngressTestApp();

  /** Parks a stored delivery as the dispatcher does after repeated deterministic failures. */
  async function park(accepted: RecordedEvent, error: string): Promise<string> {
    const input = {
      delivery: accepted.data as DeliveryAccepted['data'],
      position: accepted.position,
      eventId: accepted.id,
      traceparent: '',
    };
    await new ParkDispatchUseCase(t.store, systemClock).execute(parkedDelivery(input, error));
    return accepted.id;
  }

  async function deliverAndFind(target: { webhookId: string; secret: string; routineId: string }, n: number): Promise<RecordedEvent> {
    const answer = await t.deliver(target, { body: JSON.stringify({ data: { n } }) });
    expect(answer.status).toBe(202);
    const deliveryId = (answer.json as { delivery_id: string }).delivery_id;
    const found = (await t.acceptedDeliveries(target.routineId)).find(
      (event) => (event.data as { deliveryId: string }).deliveryId === deliveryId,
    );
    if (!found) throw new Error('the accepted delivery is not in the store');
    return found;
  }

  it('runs a parked delivery once, parks again what can never run, leaves a held one for its release, names unknown ids', async () => {
    const hook = await t.setupWebhook();
    const target = { webhookId: hook.webhookId, secret: hook.secret, routineId: hook.routineId };
    const failedTwice = await park(await deliverAndFind(target, 1), 'dispatch_failed: Error: the store refused the event');
    const outsideId = await t.appendDeliveryOutsideScope(target);
    const outside = (await t.acceptedDeliveries(hook.routineId)).find(
      (event) => (event.data as { deliveryId: string }).deliveryId === outsideId,
    );
    const neverRuns = await park(outside as RecordedEvent, 'account_out_of_scope: the account is outside the routine scope');
    const unknown = '00000000-0000-4000-8000-00000000abcd';

    const first = (await t.adminOk('POST', '/admin/parked/redispatch', { source_event_ids: [failedTwice, neverRuns, unknown] }, 200)) as {
      results: Json[];
    };
    const runId = (outside?.data as { runId: string }).runId;
    expect(first.results).toEqual([
      { source_event_id: failedTwice, outcome: 'created', run_id: expect.stringMatching(/^run_/), detail: null },
      { source_event_id: neverRuns, outcome: 'parked', run_id: runId, detail: expect.stringMatching(/scope/) },
      { source_event_id: unknown, outcome: 'not_found', run_id: null, detail: expect.any(String) },
    ]);
    const runs = await t.createdRuns(hook.routineId);
    expect(runs.map((run) => run.data as { runId: string }).map((run) => run.runId)).toEqual([first.results[0]!.run_id]);

    // Again: the run exists, nothing new is made.
    const again = (await t.adminOk('POST', '/admin/parked/redispatch', { source_event_ids: [failedTwice] }, 200)) as { results: Json[] };
    expect(again.results).toEqual([
      { source_event_id: failedTwice, outcome: 'already_created', run_id: first.results[0]!.run_id, detail: null },
    ]);
    expect(await t.createdRuns(hook.routineId)).toHaveLength(1);

    // Accepted while held: it waits for the release while the webhook is held, and runs once released.
    await t.adminOk('POST', `/admin/routines/${hook.routineId}/webhook/hold`, {}, 200);
    const heldPark = await park(await deliverAndFind(target, 2), 'dispatch_failed: Error: again');
    const held = (await t.adminOk('POST', '/admin/parked/redispatch', { source_event_ids: [heldPark] }, 200)) as { results: Json[] };
    expect(held.results).toEqual([
      { source_event_id: heldPark, outcome: 'held', run_id: expect.stringMatching(/^run_/), detail: expect.stringMatching(/release/) },
    ]);
    expect(await t.createdRuns(hook.routineId)).toHaveLength(1);
    await t.adminOk('POST', `/admin/routines/${hook.routineId}/webhook/release`, undefined, 200);
    const afterRelease = (await t.adminOk('POST', '/admin/parked/redispatch', { source_event_ids: [heldPark] }, 200)) as {
      results: Json[];
    };
    expect(afterRelease.results).toEqual([
      { source_event_id: heldPark, outcome: 'created', run_id: held.results[0]!.run_id, detail: null },
    ]);
    expect(await t.createdRuns(hook.routineId)).toHaveLength(2);

    // Who re-dispatched what is on the audit trail.
    const audit = await eventually(
      async () => {
        const page = (await t.adminOk('GET', '/admin/audit', undefined, 200)) as { entries: Json[] };
        const entries = page.entries.filter((entry) => entry.action === 'redispatch_parked');
        return entries.length === 4 ? entries : undefined;
      },
      10_000,
      'four re-dispatches on the audit trail',
    );
    expect(audit[3]).toMatchObject({ actor: { kind: 'bootstrap' }, outcome: 'succeeded', target: { type: 'parked' } });
  });

  it('refuses a body without ids, with too many, or with ids not of the listing form (400), and a viewer (403)', async () => {
    for (const body of [
      {},
      { source_event_ids: [] },
      { source_event_ids: Array.from({ length: 101 }, (_, i) => `id-${i}`) },
      { source_event_ids: ['a b'] },
    ]) {
      const answer = await t.admin('POST', '/admin/parked/redispatch', body);
      expect(answer.status).toBe(400);
      expect(answer.json).toMatchObject({ code: 'validation_failed' });
    }
    const viewer = (await t.adminOk('POST', '/admin/api-keys', { name: 'watcher', role: 'viewer' }, 201)) as { key: string };
    const refused = await t.admin('POST', '/admin/parked/redispatch', { source_event_ids: ['x'] }, viewer.key);
    expect(refused.status).toBe(403);
  });
});
