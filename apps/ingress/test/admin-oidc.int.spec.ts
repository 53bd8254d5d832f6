/**
 * People signed in with the organisation's identity provider (a real OpenID provider,
 * oidc-provider, with its own login form): a viewer cannot rotate, an operator can, and the
 * routine's audit trail names both; the bootstrap token can be switched off; an unreachable
 * provider is a 503, not a 401.
 */
import { eventually } from '@wts/testing';
import { IngressTestApp, useIngressTestApp } from '../../../test/support/ingress-test-app';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { OIDC_TEST_AUDIENCE } from '../../../test/support/oidc-provider.harness';
import { adminAccessTokens, useStartedOidcProvider } from '../../../test/support/oidc-provider.kit';
import { expectProblem } from '../../../test/support/problem-details.assertions';

interface AuditEntry {
  actor: { kind: string; subject: string; display: string } | null;
  action: string;
  outcome: string;
}

describe('operators signed in with OpenID Connect', () => {
  const provider = useStartedOidcProvider();
  const t = useIngressTestApp({}, undefined, () => ({ accessTokens: adminAccessTokens(provider) }));

  it('a viewer cannot rotate, an operator can, and the audit lists both attempts with their subjects', async () => {
    const { routineId } = await t.setupWebhook();
    const vic = await provider.signInToken('vic@example.com');
    const ada = await provider.signInToken('ada@example.com');

    const refused = await t.admin('POST', `/admin/routines/${routineId}/webhook/rotate`, {}, vic);
    expectProblem(refused, 403, 'insufficient_role');
    expect(refused.json).toMatchObject({ required_role: 'operator' });
    const rotated = await t.admin('POST', `/admin/routines/${routineId}/webhook/rotate`, {}, ada);
    expect(rotated.status).toBe(200);
    expect((rotated.json as { secret: string }).secret).toMatch(/^whsec_/);

    const rotations = await eventually(
      async () => {
        const page = (await t.adminOk('GET', `/admin/audit?routine_id=${routineId}`, undefined, 200)) as unknown as {
          entries: AuditEntry[];
        };
        const found = page.entries.filter((entry) => entry.action === 'webhook.rotate');
        return found.length === 2 ? found : undefined;
      },
      5_000,
      'both rotation attempts on the trail',
    );
    expect(rotations).toEqual([
      expect.objectContaining({ outcome: 'succeeded', actor: { kind: 'oidc', subject: 'ada@example.com', display: 'ada@example.com' } }),
      expect.objectContaining({ outcome: 'denied', actor: { kind: 'oidc', subject: 'vic@example.com', display: 'vic@example.com' } }),
    ]);
    // A viewer reads the trail too.
    expect((await t.admin('GET', `/admin/audit?actor=ada@example.com`, undefined, vic)).status).toBe(200);
  });

  it('who am I: the signed-in person and the role their token grants', async () => {
    const me = await t.admin('GET', '/admin/me', undefined, await provider.signInToken('root@example.com'));
    expect(me.json).toEqual({
      actor: { kind: 'oidc', subject: 'root@example.com', display: 'root@example.com' },
      role: 'admin',
      roles: { viewer: true, operator: true, admin: true },
    });
  });

  it("an email the provider did not verify (mallory's profile says root@example.com) names nobody: not shown, and ?actor= finds only its owner", async () => {
    const { routineId } = await t.setupWebhook();
    const mallory = await provider.signInToken('mallory');
    const root = await provider.signInToken('root@example.com');
    const me = await t.admin('GET', '/admin/me', undefined, mallory);
    expect(me.json).toMatchObject({ actor: { kind: 'oidc', subject: 'mallory', display: 'mallory' }, role: 'viewer' });

    expectProblem(await t.admin('POST', `/admin/routines/${routineId}/webhook/rotate`, {}, mallory), 403, 'insufficient_role');
    expect((await t.admin('POST', `/admin/routines/${routineId}/webhook/rotate`, {}, root)).status).toBe(200);
    const subjects = async (actor: string): Promise<string[]> => {
      const page = (await t.adminOk('GET', `/admin/audit?routine_id=${routineId}&actor=${actor}`, undefined, 200)) as unknown as {
        entries: AuditEntry[];
      };
      return page.entries.map((entry) => `${entry.actor?.subject ?? 'nobody'} ${entry.outcome}`);
    };
    await eventually(async () => (await subjects('root@example.com')).length === 1, 5_000, "root's rotation on the trail");
    expect(await subjects('root@example.com')).toEqual(['root@example.com succeeded']);
    expect(await subjects('mallory')).toEqual(['mallory denied']);
  });

  it('a token for another audience, or one tampered with, is a 401', async () => {
    const other = await provider.clientCredentialsToken('admin-bot', { audience: 'https://elsewhere.example.test/api' });
    expectProblem(await t.admin('GET', '/admin/me', undefined, other), 401, 'unauthorized');
    const token = await provider.clientCredentialsToken('admin-bot');
    const [header, payload, signature] = token.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    const forged = [header, Buffer.from(JSON.stringify({ ...claims, sub: 'mallory' })).toString('base64url'), signature].join('.');
    expectProblem(await t.admin('GET', '/admin/me', undefined, forged), 401, 'unauthorized');
  });
});

describe("the page's client id as the API's audience (Entra ID, a Keycloak client-id audience): an ID token is no access token", () => {
  const provider = useStartedOidcProvider({ publicClientId: OIDC_TEST_AUDIENCE });
  let app: IngressTestApp;
  beforeAll(async () => {
    app = await IngressTestApp.start({}, undefined, undefined, { accessTokens: adminAccessTokens(provider) });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('the ID token of a sign-in (aud = the client id = OIDC_AUDIENCE, typ not at+jwt) is a 401; its access token (typ at+jwt) opens the API', async () => {
    const { accessToken, idToken } = await provider.signInTokens('root@example.com');
    expect(decodeJwt(idToken)).toMatchObject({ iss: provider.issuer, aud: provider.audience, sub: 'root@example.com' });
    expect(decodeProtectedHeader(idToken).typ).not.toBe('at+jwt');
    expect(decodeJwt(accessToken).aud).toBe(provider.audience);
    expect(decodeProtectedHeader(accessToken).typ).toBe('at+jwt');

    expectProblem(await app.admin('GET', '/admin/me', undefined, idToken), 401, 'unauthorized');
    expectProblem(await app.admin('GET', '/admin/routines', undefined, idToken), 401, 'unauthorized');
    const me = await app.admin('GET', '/admin/me', undefined, accessToken);
    expect(me.status).toBe(200);
    expect(me.json).toMatchObject({ actor: { kind: 'oidc', subject: 'root@example.com' }, role: 'admin' });
  });
});

describe('ADMIN_TOKEN=off, and the provider out of reach', () => {
  const provider = useStartedOidcProvider();
  let app: IngressTestApp;
  beforeAll(async () => {
    app = await IngressTestApp.start({}, undefined, undefined, { accessTokens: adminAccessTokens(provider), bootstrapTokenOff: true });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('the bootstrap token opens nothing once it is off; people still sign in', async () => {
    expectProblem(await app.admin('GET', '/admin/me'), 401, 'unauthorized');
    const settings = await app.http('GET', '/ui/sign-in-settings');
    expect(settings.json).toMatchObject({ bootstrap_token: false });
    expect((await app.admin('GET', '/admin/me', undefined, await provider.clientCredentialsToken('viewer-bot'))).status).toBe(200);
  });

  it('with the provider down and its keys unknown here, a token is neither accepted nor refused: 503, and fine again once it is back', async () => {
    const token = await provider.clientCredentialsToken('operator-bot');
    await provider.stop();
    const fresh = await IngressTestApp.start({}, { dataDir: app.dataDir }, undefined, {
      accessTokens: adminAccessTokens(provider),
      bootstrapTokenOff: true,
    });
    try {
      expectProblem(await fresh.admin('GET', '/admin/me', undefined, token), 503, 'identity_provider_unavailable');
      await provider.restart();
      expect((await fresh.admin('GET', '/admin/me', undefined, token)).status).toBe(200);
    } finally {
      await fresh.close();
    }
  });
});
