import { eventually } from '@wts/testing';
import { IngressTestApp } from '../../../test/support/ingress-test-app';
import type { WebhookFixture } from '../../../test/support/ingress-admin.client';
import type { Json } from '../../../test/support/ingress-http.client';

/**
 * TRUST_PROXY (DESIGN "Configuration"): behind a proxy (compose's nginx) a rejected attempt (and a
 * refused admin call on the audit trail) shows the client named by X-Forwarded-For — but only when the peer is a trusted proxy; by default the
 * header is ignored (anyone could send one).
 */
describe('TRUST_PROXY: which peers may name the client', () => {
  const attemptsOf = async (t: IngressTestApp, hook: WebhookFixture): Promise<Json[]> =>
    eventually(
      async () => {
        const list = (await t.adminOk('GET', `/admin/routines/${hook.routineId}/webhook/attempts`, undefined, 200)).attempts as Json[];
        return list.length > 0 ? list : undefined;
      },
      5000,
      'a recorded attempt',
    );

  it.each([
    ['the proxy is trusted (127.0.0.1)', '203.0.113.7', { TRUST_PROXY: '127.0.0.1' }],
    ['by default (off), the header is ignored', '127.0.0.1', {}],
    ['only another proxy is trusted (10.0.0.0/8), the header is ignored', '127.0.0.1', { TRUST_PROXY: '10.0.0.0/8' }],
  ])('when %s: a rejected attempt shows %s', async (_name, expected, env) => {
    const t = await IngressTestApp.start(env);
    try {
      const hook = await t.setupWebhook();
      const answer = await t.deliver(hook, { authorization: 'Bearer whsec_wrong', headers: { 'x-forwarded-for': '203.0.113.7' } });
      expect(answer.status).toBe(404);
      expect((await attemptsOf(t, hook))[0]).toMatchObject({ reason: 'wrong_secret', source_address: expected });
    } finally {
      await t.close();
    }
  });

  it.each([
    ['the proxy is trusted (127.0.0.1)', '203.0.113.7', { TRUST_PROXY: '127.0.0.1' }],
    ['by default (off), the header is ignored', '127.0.0.1', {}],
  ])('when %s: a refused admin call is on the audit trail from %s (refusals are kept per source address)', async (_name, expected, env) => {
    const t = await IngressTestApp.start(env);
    try {
      const refused = await t.http('GET', '/admin/api-keys', { headers: { 'x-forwarded-for': '203.0.113.7' } });
      expect(refused.status).toBe(401);
      const entries = (await t.adminOk('GET', '/admin/audit', undefined, 200)).entries as Json[];
      expect(entries.find((entry) => entry.outcome === 'denied')).toMatchObject({
        detail: 'no_credential',
        actor: null,
        source_address: expected,
      });
    } finally {
      await t.close();
    }
  });
});
