/**
 * createIngressApp is "used by main.ts and by the integration tests": each app it builds must
 * serve its own store. Two apps in one process (each on its own DATA_DIR) must not share state.
 */
import { IngressTestApp } from '../../../test/support/ingress-test-app';

/** Each test starts two apps (a Nest app, an embedded store and read models each): seconds on a busy 2-core machine, not jest's default 5. */
const TWO_APPS_MS = 30_000;

describe('createIngressApp builds independent apps', () => {
  it(
    'a second app on a fresh store serves its own writes (account create → 201)',
    async () => {
      const first = await IngressTestApp.start();
      try {
        await first.createAccount({ email: 'first@example.com' });
        await first.createAccount({ email: 'second@example.com' });
      } finally {
        await first.close();
      }
      const second = await IngressTestApp.start();
      try {
        const result = await second.admin('POST', '/admin/accounts', { email: 'third@example.com' });
        expect({ status: result.status, body: result.json }).toEqual({
          status: 201,
          body: expect.objectContaining({ email: 'third@example.com' }),
        });
        const list = await second.adminOk('GET', '/admin/accounts', undefined, 200);
        expect(list.accounts.map((a: { email: string }) => a.email)).toEqual(['third@example.com']);
      } finally {
        await second.close();
      }
    },
    TWO_APPS_MS,
  );

  it(
    "an app does not know another app's webhooks (separate stores → 404)",
    async () => {
      const a = await IngressTestApp.start();
      const b = await IngressTestApp.start();
      try {
        const hook = await a.setupWebhook();
        expect((await a.deliver(hook)).status).toBe(202);
        const foreign = await b.deliver(hook);
        expect(foreign.status).toBe(404);
        expect(await b.acceptedDeliveries()).toHaveLength(0);
      } finally {
        await a.close();
        await b.close();
      }
    },
    TWO_APPS_MS,
  );
});
