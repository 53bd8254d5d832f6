/**
 * The admin endpoints the Config page adds: the routine list, rejected attempts (the owner sees
 * why; callers keep getting one identical 404) and replay counts of deliveries.
 */
import { eventually } from '@wts/testing';
import { UiTestServer } from '../../../../test/support/ui-test-server';

const WRONG_SECRET = `whsec_${'A'.repeat(43)}`;

describe('admin API for the Config page', () => {
  let server: UiTestServer;
  let account: { id: string; email: string };

  beforeAll(async () => {
    server = await UiTestServer.start({ WEBHOOK_MAX_PAYLOAD_BYTES: '512' });
    account = await server.createAccount('owner@example.com');
  });

  afterAll(async () => {
    await server.close();
  });

  async function enabledRoutine(name: string, override = false): Promise<{ routineId: string; webhookId: string; secret: string }> {
    const routine = await server.createRoutine({ name, account_scope: [account.id] });
    const webhook = await server.adminOk(
      'POST',
      `/admin/routines/${routine.id}/webhook/enable`,
      { default_account: account.email, account_override_allowed: override },
      200,
    );
    return { routineId: routine.id, webhookId: webhook.webhook_id, secret: webhook.secret };
  }

  describe('GET /admin/routines/{id}/webhook/attempts', () => {
    it('needs the admin token', async () => {
      const answer = await server.admin('GET', '/admin/routines/rtn_AAAAAAAAAAAAAAAAAAAAAA/webhook/attempts', undefined, null);
      expect(answer.status).toBe(401);
      const wrong = await server.admin(
        'GET',
        '/admin/routines/rtn_AAAAAAAAAAAAAAAAAAAAAA/webhook/attempts',
        undefined,
        'not-the-admin-token-at-all',
      );
      expect(wrong.status).toBe(401);
    });

    it('answers 404 routine_not_found for an unknown routine', async () => {
      const answer = await server.admin('GET', '/admin/routines/rtn_AAAAAAAAAAAAAAAAAAAAAA/webhook/attempts');
      expect(answer.status).toBe(404);
      expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(answer.json.code).toBe('routine_not_found');
    });

    it('is empty for a routine without a webhook', async () => {
      const routine = await server.createRoutine({ name: 'No webhook', account_scope: [account.id] });
      expect(await server.adminOk('GET', `/admin/routines/${routine.id}/webhook/attempts`, undefined, 200)).toEqual({
        attempts: [],
        next_cursor: null,
      });
    });

    it('lists rejected attempts newest first with reason, time and source address, while callers get one identical 404', async () => {
      const hook = await enabledRoutine('Attempts');
      const before = new Date().toISOString();
      const wrong = await server.deliver(hook.webhookId, WRONG_SECRET);
      const tooLarge = await server.deliver(hook.webhookId, hook.secret, { data: 'x'.repeat(1000) });
      const unsupported = await server.http('POST', `/workflow-webhooks/${hook.webhookId}`, {
        headers: { authorization: `Bearer ${hook.secret}`, 'content-type': 'text/html' },
        body: '<p>hi</p>',
      });
      const badAccount = await server.deliver(hook.webhookId, hook.secret, { account_email: 'nobody@example.com', data: 1 });
      await server.adminOk('POST', `/admin/routines/${hook.routineId}/webhook/disable`, undefined, 200);
      const disabled = await server.deliver(hook.webhookId, hook.secret);
      const unknown = await server.deliver('whk_AAAAAAAAAAAAAAAAAAAAAA', hook.secret);

      expect([wrong.status, tooLarge.status, unsupported.status, badAccount.status, disabled.status, unknown.status]).toEqual([
        404, 413, 415, 400, 404, 404,
      ]);
      expect(disabled.text).toBe(wrong.text);
      expect(unknown.text).toBe(wrong.text);

      const { attempts } = await server.adminOk('GET', `/admin/routines/${hook.routineId}/webhook/attempts`, undefined, 200);
      expect(attempts.map((attempt: { reason: string }) => attempt.reason)).toEqual([
        'webhook_disabled',
        'account_override_not_allowed',
        'unsupported_media_type',
        'payload_too_large',
        'wrong_secret',
      ]);
      for (const attempt of attempts) {
        expect(Object.keys(attempt).sort()).toEqual(['at', 'reason', 'source_address']);
        expect(attempt.source_address).toBe('127.0.0.1');
        expect(attempt.at >= before).toBe(true);
      }
    });

    it('keeps only the most recent 100 attempts of a webhook, however many arrive', async () => {
      const hook = await enabledRoutine('Flooded');
      for (let i = 0; i < 130; i += 1) {
        const answer = await server.deliver(hook.webhookId, WRONG_SECRET);
        expect(answer.status).toBe(404);
      }
      const { attempts } = await server.adminOk('GET', `/admin/routines/${hook.routineId}/webhook/attempts`, undefined, 200);
      expect(attempts).toHaveLength(100);
    });
  });

  describe('GET /admin/routines/{id}/webhook/replays', () => {
    it('counts idempotent repeats per delivery, in the order of the deliveries listing', async () => {
      const hook = await enabledRoutine('Replays');
      const first = await server.deliver(hook.webhookId, hook.secret, { data: 1 }, { 'x-service-idempotency-key': 'order-1' });
      const again = await server.deliver(hook.webhookId, hook.secret, { data: 1 }, { 'x-service-idempotency-key': 'order-1' });
      const third = await server.deliver(hook.webhookId, hook.secret, { data: 1 }, { 'x-service-idempotency-key': 'order-1' });
      const other = await server.deliver(hook.webhookId, hook.secret, { data: 2 });
      expect([first.status, again.status, third.status, other.status]).toEqual([202, 202, 202, 202]);
      expect(again.headers.get('idempotent-replayed')).toBe('true');

      const listed = await eventually(
        async () => {
          const deliveries: { delivery_id: string }[] = (
            await server.adminOk('GET', `/admin/routines/${hook.routineId}/webhook/deliveries`, undefined, 200)
          ).deliveries;
          return deliveries.length >= 2 ? deliveries : undefined;
        },
        2_000,
        'both deliveries listed',
        20,
      );
      const { replays } = await server.adminOk('GET', `/admin/routines/${hook.routineId}/webhook/replays`, undefined, 200);
      expect(replays).toEqual([
        { delivery_id: other.json.delivery_id, replays: 0 },
        { delivery_id: first.json.delivery_id, replays: 2 },
      ]);
      expect(replays.map((entry: { delivery_id: string }) => entry.delivery_id)).toEqual(listed.map((delivery) => delivery.delivery_id));
      const limited = await server.adminOk('GET', `/admin/routines/${hook.routineId}/webhook/replays?limit=1`, undefined, 200);
      expect(limited.replays).toHaveLength(1);
    });

    it('answers 404 for an unknown routine, 400 for a bad limit, 401 without the token', async () => {
      expect((await server.admin('GET', '/admin/routines/rtn_AAAAAAAAAAAAAAAAAAAAAA/webhook/replays')).json.code).toBe('routine_not_found');
      const routine = await server.createRoutine({ name: 'Limits', account_scope: [account.id] });
      expect((await server.admin('GET', `/admin/routines/${routine.id}/webhook/replays?limit=0`)).status).toBe(400);
      expect((await server.admin('GET', `/admin/routines/${routine.id}/webhook/replays`, undefined, null)).status).toBe(401);
    });
  });

  describe('GET /admin/routines', () => {
    it('lists every routine newest first with its webhook state and block', async () => {
      const quiet = await server.createRoutine({ name: 'Quiet', account_scope: [account.id] });
      const risky = await server.createRoutine({
        name: 'Risky',
        account_scope: [account.id],
        mode: 'autonomous',
        tools: [{ name: 'send_email', sends_externally: true }],
      });
      const enabled = await enabledRoutine('Enabled one');
      const { routines } = await server.adminOk('GET', '/admin/routines', undefined, 200);
      const byId = new Map(routines.map((routine: { id: string }) => [routine.id, routine]));
      expect(byId.get(quiet.id)).toMatchObject({
        name: 'Quiet',
        mode: 'supervised',
        webhook_state: 'not_configured',
        webhook_blocked: false,
      });
      expect(byId.get(risky.id)).toMatchObject({
        name: 'Risky',
        mode: 'autonomous',
        webhook_state: 'not_configured',
        webhook_blocked: true,
      });
      expect(byId.get(enabled.routineId)).toMatchObject({ name: 'Enabled one', webhook_state: 'enabled', webhook_blocked: false });
      const ids = routines.map((routine: { id: string }) => routine.id);
      expect(ids.indexOf(enabled.routineId)).toBeLessThan(ids.indexOf(risky.id));
      expect(ids.indexOf(risky.id)).toBeLessThan(ids.indexOf(quiet.id));
      expect(new Set(ids).size).toBe(ids.length);

      // Updates append to a known routine stream: still listed once, with the new name.
      await server.adminOk('PATCH', `/admin/routines/${quiet.id}`, { name: 'Quiet, renamed' }, 200);
      const again = (await server.adminOk('GET', '/admin/routines', undefined, 200)).routines;
      expect(again.filter((routine: { id: string }) => routine.id === quiet.id)).toEqual([
        expect.objectContaining({ name: 'Quiet, renamed' }),
      ]);
      expect(again).toHaveLength(routines.length);
    });

    it('needs the admin token', async () => {
      expect((await server.admin('GET', '/admin/routines', undefined, null)).status).toBe(401);
    });
  });
});
