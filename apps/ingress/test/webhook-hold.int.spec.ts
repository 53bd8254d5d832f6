import { eventually } from '@wts/testing';
import { useIngressTestApp } from '../../../test/support/ingress-test-app';

type Json = Record<string, unknown>;

/**
 * Hold and release at the ingress, against a real store and read models, with the dispatcher and
 * its release drain in-process: what a sender sees while held (nothing different), what the view
 * says, the rules (an enabled webhook only; a hold outlives disable and enable), the expiry, the
 * audit trail.
 */
describe('webhook hold and release (ingress)', () => {
  const t = useIngressTestApp();

  const view = async (routineId: string): Promise<Json> =>
    (await t.adminOk('GET', `/admin/routines/${routineId}/webhook`, undefined, 200)) as Json;

  it('while held a sender gets the same 202 (status, headers, body shape) and no run is made; release makes the runs', async () => {
    await t.startDispatcher();
    try {
      const hook = await t.setupWebhook();
      const target = { webhookId: hook.webhookId, secret: hook.secret };
      const before = await t.deliver(target);
      expect(before.status).toBe(202);
      await eventually(async () => (await t.createdRuns(hook.routineId)).length === 1 || undefined, 10_000, 'the first run');

      const held = (await t.adminOk('POST', `/admin/routines/${hook.routineId}/webhook/hold`, {}, 200)) as Json;
      expect(held).toMatchObject({
        state: 'enabled',
        held: true,
        held_by: 'bootstrap token',
        release_at: null,
        held_deliveries: 0,
        last_release: null,
      });
      const during = await t.deliver(target, { body: JSON.stringify({ data: { n: 2 } }) });
      expect(during.status).toBe(202);
      expect(Object.keys(during.json as Json).sort()).toEqual(Object.keys(before.json as Json).sort());
      expect((during.json as Json).status).toBe('accepted');
      const headerNames = (answer: typeof before): string[] => [...answer.headers.keys()].filter((name) => name !== 'date').sort();
      expect(headerNames(during)).toEqual(headerNames(before));
      await t.deliver(target, { body: JSON.stringify({ data: { n: 3 } }) });

      await eventually(
        async () => ((await view(hook.routineId)).held_deliveries === 2 ? true : undefined),
        10_000,
        'two held deliveries counted',
      );
      expect(await t.createdRuns(hook.routineId)).toHaveLength(1);

      const released = (await t.adminOk('POST', `/admin/routines/${hook.routineId}/webhook/release`, undefined, 200)) as Json;
      expect(released).toMatchObject({ held: false, held_since: null, last_release: 'run' });
      await eventually(async () => ((await t.createdRuns(hook.routineId)).length === 3 ? true : undefined), 10_000, 'the held runs');
      await eventually(async () => ((await view(hook.routineId)).held_deliveries === 0 ? true : undefined), 10_000, 'none waiting');
      // Released: the next delivery runs at once.
      await t.deliver(target, { body: JSON.stringify({ data: { n: 4 } }) });
      await eventually(async () => ((await t.createdRuns(hook.routineId)).length === 4 ? true : undefined), 10_000, 'the next run');
    } finally {
      await t.stopDispatcher();
    }
  });

  it('only an enabled webhook can be held; a hold outlives disable and enable; release is harmless when not held', async () => {
    const hook = await t.setupWebhook();
    const path = `/admin/routines/${hook.routineId}/webhook`;
    expect((await t.adminOk('POST', `${path}/release`, undefined, 200)) as Json).toMatchObject({ held: false, held_deliveries: null });
    await t.adminOk('POST', `${path}/hold`, {}, 200);
    await t.adminOk('POST', `${path}/disable`, undefined, 200);
    expect(await view(hook.routineId)).toMatchObject({ state: 'disabled', held: true });
    const reenabled = (await t.adminOk(
      'POST',
      `${path}/enable`,
      { default_account: hook.account.email, account_override_allowed: false },
      200,
    )) as Json;
    expect(reenabled).toMatchObject({ state: 'enabled', held: true });
    await t.adminOk('POST', `${path}/release`, undefined, 200);
    await t.adminOk('POST', `${path}/disable`, undefined, 200);
    const refused = await t.admin('POST', `${path}/hold`, {});
    expect(refused.status).toBe(409);
    expect(refused.json).toMatchObject({ code: 'webhook_not_enabled' });
    const none = await t.createRoutine({ account_scope: [hook.account.id] });
    const unconfigured = await t.admin('POST', `/admin/routines/${none.id}/webhook/hold`, {});
    expect(unconfigured.json).toMatchObject({ status: 409, code: 'webhook_not_configured' });
  });

  it('a hold with release_at is released by the service once it has passed (expired, no operator); both are on the audit trail', async () => {
    const hook = await t.setupWebhook();
    const releaseAt = new Date(Date.now() + 1500).toISOString();
    const held = (await t.adminOk('POST', `/admin/routines/${hook.routineId}/webhook/hold`, { release_at: releaseAt }, 200)) as Json;
    expect(held).toMatchObject({ held: true, release_at: releaseAt });
    await eventually(async () => ((await view(hook.routineId)).held === false ? true : undefined), 10_000, 'the expiry to release it');
    const events = (await t.allEvents()).filter((event) => event.streamId === `webhook-${hook.webhookId}`);
    const release = events.find((event) => event.type === 'WebhookReleased');
    expect(release?.data).toMatchObject({ expired: true, releasedBy: 'hold expiry' });
    expect((release?.metadata as Json).actor).toBeUndefined();
    expect(Date.parse((release?.data as { releasedAt: string }).releasedAt)).toBeGreaterThanOrEqual(Date.parse(releaseAt));
    expect(events.filter((event) => event.type === 'WebhookReleased')).toHaveLength(1);

    const trail = await eventually(
      async () => {
        const page = (await t.adminOk('GET', `/admin/audit?routine_id=${hook.routineId}`, undefined, 200)) as { entries: Json[] };
        const actions = page.entries.map((entry) => entry.action);
        return actions.includes('webhook.release') && actions.includes('webhook.hold') ? page.entries : undefined;
      },
      10_000,
      'hold and release on the trail',
    );
    expect(trail.find((entry) => entry.action === 'webhook.hold')).toMatchObject({ actor: { kind: 'bootstrap' } });
    expect(trail.find((entry) => entry.action === 'webhook.release')).toMatchObject({ actor: null });
  });

  it('refuses a malformed release_at, one without its offset, or one in the past (400, nothing recorded)', async () => {
    const hook = await t.setupWebhook();
    for (const release_at of [
      'tomorrow',
      '2099-01-01T00:00:00',
      '2020-01-01T00:00:00Z',
      5,
      // ISO 8601 forms a strict ISO check takes but the platform cannot read: each a 400, never a 500.
      '20991127T180000Z',
      '2099-W48-5T18:00:00Z',
      '2099-331T18:00:00Z',
      '2099-11-27T18Z',
      '2099-11-27T1800Z',
      '+2099-11-27T18:00:00Z',
      '2099-13-01T00:00:00Z',
    ]) {
      const answer = await t.admin('POST', `/admin/routines/${hook.routineId}/webhook/hold`, { release_at });
      expect(answer.status).toBe(400);
      expect(answer.json).toMatchObject({ code: 'validation_failed' });
    }
    expect(await view(hook.routineId)).toMatchObject({ held: false, held_deliveries: null });
  });
});
