import { eventually } from '@wts/testing';
import { useIngressTestApp } from '../../../test/support/ingress-test-app';

type Json = Record<string, unknown>;

const DEFAULT_SECONDS = 7200;
const DAY_MS = 86_400_000;

/**
 * A webhook's payload retention at the ingress, against a real store and read models: the enable
 * field and the PATCH (what they accept and refuse), the view, the expiry a delivery accepted
 * afterwards is given (fixed at acceptance), and the audit trail.
 */
describe('webhook payload retention (ingress)', () => {
  const t = useIngressTestApp({ PAYLOAD_RETENTION_SECONDS: String(DEFAULT_SECONDS) });

  const patch = (routineId: string, body: unknown): ReturnType<typeof t.admin> =>
    t.admin('PATCH', `/admin/routines/${routineId}/webhook`, body);
  const view = async (routineId: string): Promise<Json> =>
    (await t.adminOk('GET', `/admin/routines/${routineId}/webhook`, undefined, 200)) as Json;
  const retentionEvents = async (webhookId: string): Promise<unknown[]> =>
    (await t.allEvents()).filter((event) => event.streamId === `webhook-${webhookId}` && event.type === 'WebhookRetentionChanged');

  it('the view shows the default until a retention is set; PATCH sets it, the same value records nothing, null goes back', async () => {
    const hook = await t.setupWebhook();
    expect(await view(hook.routineId)).toMatchObject({
      payload_retention_days: null,
      payload_retention_seconds_effective: DEFAULT_SECONDS,
    });

    const set = await patch(hook.routineId, { payload_retention_days: 30 });
    expect(set.status).toBe(200);
    expect(set.json).toMatchObject({ state: 'enabled', payload_retention_days: 30, payload_retention_seconds_effective: 30 * 86_400 });
    expect(await view(hook.routineId)).toMatchObject({ payload_retention_days: 30 });
    expect((await patch(hook.routineId, { payload_retention_days: 30 })).status).toBe(200);
    expect(await retentionEvents(hook.webhookId)).toHaveLength(1);

    const back = await patch(hook.routineId, { payload_retention_days: null });
    expect(back.json).toMatchObject({ payload_retention_days: null, payload_retention_seconds_effective: DEFAULT_SECONDS });
    const events = await retentionEvents(hook.webhookId);
    expect(events).toHaveLength(2);
    expect(events[1]).toMatchObject({ data: { webhookId: hook.webhookId, payloadRetentionDays: null } });
  });

  it('refuses days that are not a whole number from 1 to 3650, a missing field or an unknown one (400 naming the field)', async () => {
    const hook = await t.setupWebhook();
    const enablePath = `/admin/routines/${hook.routineId}/webhook/enable`;
    for (const value of [0, 3651, 1.5, '30', -1, true, {}]) {
      const answer = await patch(hook.routineId, { payload_retention_days: value });
      expect(answer.status).toBe(400);
      expect(answer.json).toMatchObject({ code: 'validation_failed' });
      expect(JSON.stringify(answer.json)).toContain('payload_retention_days must be a whole number of days from 1 to 3650');
    }
    const missing = await patch(hook.routineId, {});
    expect(missing.status).toBe(400);
    expect(JSON.stringify(missing.json)).toContain('name at least one setting: payload_retention_days');
    const unknown = await patch(hook.routineId, { payload_retention_days: 30, default_account: hook.account.email });
    expect(unknown.status).toBe(400);
    expect(JSON.stringify(unknown.json)).toContain('default_account should not exist');

    await t.adminOk('POST', `/admin/routines/${hook.routineId}/webhook/disable`, undefined, 200);
    for (const value of [0, 3651, 1.5, '30']) {
      const answer = await t.admin('POST', enablePath, {
        default_account: hook.account.email,
        account_override_allowed: false,
        payload_retention_days: value,
      });
      expect(answer.status).toBe(400);
      expect(JSON.stringify(answer.json)).toContain('payload_retention_days must be a whole number of days from 1 to 3650');
    }
    expect(await retentionEvents(hook.webhookId)).toHaveLength(0);
    expect(await view(hook.routineId)).toMatchObject({ state: 'disabled', payload_retention_days: null });
  });

  it('enable takes payload_retention_days (null or absent: the default); a disabled webhook keeps a PATCH until it is enabled again', async () => {
    const account = await t.createAccount();
    const routine = await t.createRoutine({ account_scope: [account.id] });
    const enabled = await t.enableWebhook(routine.id as string, account.email, false, { payload_retention_days: 3650 });
    expect(enabled).toMatchObject({ payload_retention_days: 3650, payload_retention_seconds_effective: 3650 * 86_400 });
    const accepted = (await t.allEvents()).find(
      (event) => event.type === 'WebhookEnabled' && event.streamId === `webhook-${enabled.webhook_id as string}`,
    );
    expect(accepted?.data).toMatchObject({ payloadRetentionDays: 3650 });

    await t.adminOk('POST', `/admin/routines/${routine.id as string}/webhook/disable`, undefined, 200);
    expect((await patch(routine.id as string, { payload_retention_days: 1 })).json).toMatchObject({
      state: 'disabled',
      payload_retention_days: 1,
    });
    const again = await t.enableWebhook(routine.id as string, account.email, false, { payload_retention_days: null });
    expect(again).toMatchObject({ state: 'enabled', payload_retention_days: null, payload_retention_seconds_effective: DEFAULT_SECONDS });
  });

  it('404 for an unknown routine, 409 webhook_not_configured for a routine without a webhook', async () => {
    const unknown = await patch('rtn_AAAAAAAAAAAAAAAAAAAAAA', { payload_retention_days: 30 });
    expect(unknown.status).toBe(404);
    expect(unknown.json).toMatchObject({ code: 'routine_not_found' });
    const account = await t.createAccount();
    const routine = await t.createRoutine({ account_scope: [account.id] });
    const none = await patch(routine.id as string, { payload_retention_days: 30 });
    expect(none.status).toBe(409);
    expect(none.json).toMatchObject({ code: 'webhook_not_configured' });
  });

  it('a delivery accepted after a PATCH expires receivedAt + its days; one accepted before keeps its expiry', async () => {
    const hook = await t.setupWebhook();
    const target = { webhookId: hook.webhookId, secret: hook.secret };
    expect((await t.deliver(target, { body: JSON.stringify({ data: { n: 1 } }) })).status).toBe(202);
    await patch(hook.routineId, { payload_retention_days: 30 });
    expect((await t.deliver(target, { body: JSON.stringify({ data: { n: 2 } }) })).status).toBe(202);

    const deliveries = (await t.acceptedDeliveries(hook.routineId)).map(
      (event) => event.data as { receivedAt: string; payloadExpiresAt: string },
    );
    expect(deliveries).toHaveLength(2);
    const [before, after] = deliveries as [(typeof deliveries)[0], (typeof deliveries)[0]];
    expect(Date.parse(before.payloadExpiresAt) - Date.parse(before.receivedAt)).toBe(DEFAULT_SECONDS * 1000);
    expect(Date.parse(after.payloadExpiresAt) - Date.parse(after.receivedAt)).toBe(30 * DAY_MS);
  });

  it('is on the audit trail as webhook.retention, with the days or "default", and the actor', async () => {
    const hook = await t.setupWebhook();
    await patch(hook.routineId, { payload_retention_days: 30 });
    await patch(hook.routineId, { payload_retention_days: null });
    const entries = await eventually(
      async () => {
        const page = (await t.adminOk('GET', `/admin/audit?routine_id=${hook.routineId}`, undefined, 200)) as { entries: Json[] };
        const found = page.entries.filter((entry) => entry.action === 'webhook.retention');
        return found.length === 2 ? found : undefined;
      },
      10_000,
      'both changes on the trail',
    );
    // Newest first.
    expect(entries[0]).toMatchObject({
      detail: 'payload retention default',
      target: { id: hook.webhookId, routine_id: hook.routineId },
      actor: { kind: 'bootstrap' },
    });
    expect(entries[1]).toMatchObject({ detail: 'payload retention 30 days', target: { type: 'webhook', id: hook.webhookId } });
  });
});
