import { useIngressReplicas } from '../../../test/support/ingress-test-app';

/**
 * Two ingress replicas on one store. A decision on one replica sees every change committed
 * through the other before the request: no lag window for rotate, disable, the safety block or
 * the account scope; concurrent first enables agree on one webhook.
 */
describe('two ingress replicas on one store', () => {
  const [a, b] = useIngressReplicas({ WEBHOOK_RATE_LIMIT_PER_MINUTE: '100000' });

  it('a secret rotated on A is dead on B at once, and the new one works there', async () => {
    for (let round = 0; round < 10; round++) {
      const fixture = await a.setupWebhook();
      const rotated = await a.adminOk('POST', `/admin/routines/${fixture.routineId}/webhook/rotate`, undefined, 200);
      expect((await b.deliver(fixture)).status).toBe(404);
      expect((await b.deliver({ webhookId: fixture.webhookId, secret: rotated.secret as string })).status).toBe(202);
    }
  });

  it('a webhook disabled on A answers 404 on B at once', async () => {
    for (let round = 0; round < 10; round++) {
      const fixture = await a.setupWebhook();
      await a.adminOk('POST', `/admin/routines/${fixture.routineId}/webhook/disable`, undefined, 200);
      expect((await b.deliver(fixture)).status).toBe(404);
    }
  });

  it('a routine made unsafe on A is blocked on B at once', async () => {
    for (let round = 0; round < 10; round++) {
      const fixture = await a.setupWebhook({ routine: { tools: [{ name: 'email.send', sends_externally: true }] } });
      await a.adminOk('PATCH', `/admin/routines/${fixture.routineId}`, { mode: 'autonomous' }, 200);
      const answer = await b.deliver(fixture);
      expect(answer.status).toBe(403);
      expect((answer.json as { code: string }).code).toBe('webhook_blocked');
    }
  });

  it('concurrent first enables on A and B agree on one webhook id, and its only secret is the last one issued', async () => {
    for (let round = 0; round < 5; round++) {
      const account = await a.createAccount();
      const routine = await a.createRoutine({ account_scope: [account.id] });
      const body = { default_account: account.email, account_override_allowed: false };
      const [fromA, fromB] = await Promise.all([
        a.admin('POST', `/admin/routines/${routine.id}/webhook/enable`, body),
        b.admin('POST', `/admin/routines/${routine.id}/webhook/enable`, body),
      ]);
      const answers = [fromA, fromB];
      const succeeded = answers.filter((answer) => answer.status === 200);
      expect(succeeded).toHaveLength(1);
      expect(answers.find((answer) => answer.status !== 200)?.status).toBe(409);
      const webhook = succeeded[0].json as { webhook_id: string; secret: string };
      const webhookStreams = (await a.store.readAll({ limit: 10_000, filter: { streamPrefixes: ['webhook-'] } })).filter(
        (event) => event.type === 'WebhookEnabled' && (event.data as { routineId: string }).routineId === routine.id,
      );
      expect(webhookStreams).toHaveLength(1);
      expect((await b.deliver({ webhookId: webhook.webhook_id, secret: webhook.secret })).status).toBe(202);
    }
  });
});
