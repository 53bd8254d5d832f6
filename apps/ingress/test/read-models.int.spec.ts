import { eventually } from '@wts/testing';
import { IngressTestApp } from '../../../test/support/ingress-test-app';
import type { WebhookFixture } from '../../../test/support/ingress-admin.client';
import type { Json } from '../../../test/support/ingress-http.client';
import { createTestDatabase, type TestDatabase } from '../../../test/support/postgres-test-database';

/**
 * The read models as a deployment sees them: two ingress replicas on one store and one read-model
 * database — SQLite beside the store (both projectors run; the checkpoint's compare-and-set keeps
 * every row single) and PostgreSQL (one projector holds the lease; the other takes over when it
 * goes). Rejected attempts and replay counts are durable and shared.
 */
describe.each([
  ['SQLite beside the store', false],
  ['PostgreSQL', true],
])('read models on %s, two replicas', (_name, postgres) => {
  let database: TestDatabase | undefined;
  let a: IngressTestApp;
  let b: IngressTestApp;
  let hook: WebhookFixture;

  beforeAll(async () => {
    database = postgres ? await createTestDatabase('read_models') : undefined;
    const env = { WEBHOOK_RATE_LIMIT_PER_MINUTE: '1000000', ...(database ? { DATABASE_URL: database.url } : {}) };
    a = await IngressTestApp.start(env);
    b = await IngressTestApp.start(env, { dataDir: a.dataDir });
    hook = await a.setupWebhook();
    await a.startDispatcher();
  }, 30_000);

  afterAll(async () => {
    await b?.close();
    await a?.close();
    await database?.drop();
  });

  it('lists every delivery and run once, whichever replica accepted it', async () => {
    const accepted: string[] = [];
    for (let i = 0; i < 60; i += 1) {
      const answer = await (i % 2 === 0 ? a : b).deliver(hook, { body: JSON.stringify({ data: { i } }) });
      expect(answer.status).toBe(202);
      accepted.push((answer.json as Json).delivery_id);
    }
    for (const replica of [a, b]) {
      const listed = await replica.waitForDeliveries(hook.routineId, 60);
      expect(listed.map((delivery: Json) => delivery.delivery_id)).toEqual([...accepted].reverse());
      const runs = await replica.waitForRuns(hook.routineId, 60);
      expect(new Set(runs.map((run: Json) => run.delivery_id))).toEqual(new Set(accepted));
      expect(runs).toHaveLength(60);
    }
    if (postgres) expect([a.readModels.holdsProjectorLease(), b.readModels.holdsProjectorLease()].filter(Boolean)).toHaveLength(1);
  });

  it('shows rejected attempts and replays recorded on one replica on the other', async () => {
    expect((await a.deliver(hook, { authorization: 'Bearer whsec_wrong' })).status).toBe(404);
    const key = { 'x-service-idempotency-key': `shared-${postgres ? 'pg' : 'sqlite'}` };
    const first = await a.deliver(hook, { headers: key });
    expect((await a.deliver(hook, { headers: key })).status).toBe(202);
    expect((await a.deliver(hook, { headers: key })).status).toBe(202);

    const attempts = await eventually(
      async () => {
        const list = (await b.adminOk('GET', `/admin/routines/${hook.routineId}/webhook/attempts`, undefined, 200)).attempts as Json[];
        return list.length > 0 ? list : undefined;
      },
      5000,
      'the attempt on the other replica',
    );
    expect(attempts[0]).toMatchObject({ reason: 'wrong_secret', source_address: '127.0.0.1' });
    const replays = await eventually(
      async () => {
        const list = (await b.adminOk('GET', `/admin/routines/${hook.routineId}/webhook/replays`, undefined, 200)).replays as Json[];
        const entry = list.find((item) => item.delivery_id === (first.json as Json).delivery_id);
        return entry?.replays === 2 ? entry : undefined;
      },
      5000,
      'two replays seen by the other replica',
    );
    expect(replays).toEqual({ delivery_id: (first.json as Json).delivery_id, replays: 2 });
  });

  it('goes on projecting when the replica that projected stops', async () => {
    const projecting = postgres ? (a.readModels.holdsProjectorLease() ? a : b) : a;
    const survivor = projecting === a ? b : a;
    await projecting.close({ keepData: true });
    if (projecting === a) await survivor.startDispatcher();
    const before = (await survivor.runs(hook.routineId, 1000)).length;
    for (let i = 0; i < 5; i += 1)
      expect((await survivor.deliver(hook, { body: JSON.stringify({ data: { after: i } }) })).status).toBe(202);
    await survivor.waitForRuns(hook.routineId, before + 5);
    if (postgres) expect(survivor.readModels.holdsProjectorLease()).toBe(true);
  }, 20_000);
});
