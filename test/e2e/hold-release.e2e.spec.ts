import { SqliteEventStore, type RecordedEvent } from '@wts/event-store';
import { eventually } from '@wts/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AdminClient } from '../support/admin-client';
import { sendAccepted } from '../support/delivery-sender';
import { expectOneRunEachInAcceptanceOrder } from '../support/run-per-delivery.assertions';
import { releaseUntilRunsAreMade, startInspectedPair, type WebhookAnswer } from '../support/inspected-pair.harness';
import { ServiceProcess, assertBuilt } from '../support/service-processes';
import { acceptedDeliveries, createdRuns, parkedDispatches } from '../support/store-inspection';

/**
 * Hold and release on the embedded default, both services as separate processes from the build:
 * a held webhook's 1,000 deliveries are accepted (202) with no run while another webhook's flow; a
 * quarter of them name a second account, which the routine's scope leaves out during the hold (with
 * new instructions). The release judges them as things stand then: it runs the others with the new
 * instructions and parks those, the dispatcher is killed (-9) in the middle of it and started again,
 * and in the end every held delivery in scope has exactly one run, made in acceptance order, and
 * every other one is parked with its reason and has none.
 */
describe('hold and release (embedded default, kill -9 during the release)', () => {
  const HELD = 1000;
  const FLOWING = 100;
  let dataDir: string;
  let ingress: ServiceProcess;
  let dispatcher: ServiceProcess;
  let admin: AdminClient;
  let store: SqliteEventStore;

  beforeAll(async () => {
    assertBuilt();
    dataDir = mkdtempSync(join(tmpdir(), 'wts-e2e-hold-'));
    ({ ingress, dispatcher, admin, store } = await startInspectedPair(dataDir));
  }, 60_000);

  afterAll(async () => {
    await ingress?.stop();
    await dispatcher?.stop();
    await store?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const send = sendAccepted;

  it('holds 1,000 deliveries without a run, lets another webhook flow, and after release runs each in scope once, in order, and parks the rest', async () => {
    const held = await admin.setUpWebhook('held@example.com');
    const flowing = await admin.setUpWebhook('flowing@example.com');
    const other = await admin.call<{ id: string }>('POST', '/admin/accounts', { email: 'left-out@example.com' });
    const routinePath = `/admin/routines/${held.routineId}`;
    expect((await admin.call('PATCH', routinePath, { account_scope: [held.accountId, other.body.id] })).status).toBe(200);
    const leftOut = (i: number): boolean => i % 4 === 3;

    const hold = await admin.call<WebhookAnswer>('POST', `/admin/routines/${held.routineId}/webhook/hold`, {});
    expect(hold.status).toBe(200);
    expect(hold.body).toMatchObject({ held: true, held_by: 'bootstrap token', release_at: null });
    expect(hold.body.held_since).toEqual(expect.any(String));

    // Held deliveries and another webhook's, at the same time: the other one's runs are made meanwhile.
    const [heldAccepted] = await Promise.all([
      send(held.url, held.secret, HELD, 'held', 8, (i) => (leftOut(i) ? { account_email: 'left-out@example.com' } : {})),
      send(flowing.url, flowing.secret, FLOWING, 'flow'),
    ]);
    expect(heldAccepted).toHaveLength(HELD);
    await eventually(async () => (await createdRuns(store, flowing.routineId)).length === FLOWING, 30_000, 'the other webhook to flow');
    // The dispatcher has been past the held deliveries (the flowing ones came in between, and after): none has a run.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(await createdRuns(store, held.routineId)).toHaveLength(0);

    const view = await eventually(
      async () => {
        const answer = await admin.call<WebhookAnswer>('GET', `/admin/routines/${held.routineId}/webhook`);
        return answer.body.held_deliveries === HELD ? answer.body : undefined;
      },
      30_000,
      'the view to count the held deliveries',
    );
    expect(view).toMatchObject({ held: true, held_by: 'bootstrap token' });
    // The fix made during the hold: new instructions, and the second account out of scope.
    const fixed = await admin.call('PATCH', routinePath, { account_scope: [held.accountId], instructions: 'NEW: triage it differently' });
    expect(fixed.status).toBe(200);
    const inScope = HELD - Math.floor(HELD / 4);

    // Release, and kill -9 the dispatcher while it is making the held runs.
    const { made: killedAt } = await releaseUntilRunsAreMade({ admin, store, dispatcher }, held.routineId);
    await dispatcher.kill9();
    expect(killedAt).toBeLessThan(HELD - Math.floor(HELD / 4));
    const atKill = (await createdRuns(store, held.routineId)).length;
    dispatcher.start();

    const parkedOf = async (): Promise<RecordedEvent[]> => parkedDispatches(store, held.routineId);
    await eventually(
      async () => (await createdRuns(store, held.routineId)).length >= inScope && (await parkedOf()).length >= HELD - inScope,
      60_000,
      `every held delivery to have its run or its park (dispatcher output:\n${dispatcher.tail()})`,
    );
    const runs = await createdRuns(store, held.routineId);
    // Exactly one run per held delivery in scope, each the one its delivery names, made in acceptance order, with the fix.
    const deliveries = await acceptedDeliveries(store, held.routineId);
    expect(deliveries).toHaveLength(HELD);
    const accountOf = (event: RecordedEvent): string => (event.data as { triggerAccount: { accountId: string } }).triggerAccount.accountId;
    expectOneRunEachInAcceptanceOrder(
      deliveries.filter((event) => accountOf(event) === held.accountId),
      runs,
    );
    for (const run of runs)
      expect((run.data as { routine: { instructions: string } }).routine.instructions).toBe('NEW: triage it differently');
    // Every delivery for the account left out is parked once, with the reason, and has no run.
    const parked = await parkedOf();
    const leftOutIds = deliveries.filter((event) => accountOf(event) === other.body.id).map((event) => event.id);
    expect(parked.map((park) => (park.data as { sourceEventId: string }).sourceEventId).sort()).toEqual([...leftOutIds].sort());
    for (const park of parked) expect((park.data as { error: string }).error).toMatch(/^account_out_of_scope: /);
    // The kill really fell in the middle of the release.
    expect(atKill).toBeGreaterThan(0);
    expect(atKill).toBeLessThan(inScope);

    const after = await eventually(
      async () => {
        const answer = await admin.call<WebhookAnswer>('GET', `/admin/routines/${held.routineId}/webhook`);
        return answer.body.held_deliveries === 0 ? answer.body : undefined;
      },
      30_000,
      'the view to count no waiting delivery',
    );
    expect(after).toMatchObject({ held: false, held_since: null, held_by: null });
  }, 240_000);
});
