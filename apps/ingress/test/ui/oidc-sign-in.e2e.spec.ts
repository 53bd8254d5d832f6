/**
 * Signing in to the Config page with the organisation's identity provider, in a real browser
 * (Debian's headless Chromium) against a real OpenID provider (oidc-provider, with its own
 * development login form: test/support/oidc/provider.mjs) and the ingress verifying its access
 * tokens (OidcAccessTokenVerifier): the page's button → the provider's login form → back on the
 * page the sign-in started from, signed in as ada@example.com (operator); rotate works; a reload
 * signs in again without the form (prompt=none, the provider's session alive) and keeps no token
 * in storage. Signing out: oidc-sign-out.e2e.spec.ts. Screenshots go to test-artifacts/ui/.
 */
import { PUBLIC_CLIENT_ID, expectNothingOffMachineButWebFonts, useOidcSignInPage } from '../../../../test/support/oidc-sign-in-page';

jest.setTimeout(30_000);

describe('Config page: sign in with the organisation (browser, real OpenID provider)', () => {
  const ui = useOidcSignInPage();
  const { provider, server, page, authorizationRequests, loginForms, shot, text, waitText, storage, signInAtProvider } = ui;
  let routineId = '';

  beforeAll(async () => {
    const account = await server.createAccount('ops@example.com');
    routineId = (await server.createRoutine({ name: 'Triage alerts', account_scope: [account.id] })).id;
    await server.enableWebhook(routineId, 'ops@example.com');
  });

  it('tells the page about the provider, and the CSP lets the page reach it (and nothing else)', async () => {
    const settings = await server.http('GET', '/ui/sign-in-settings');
    expect(settings.json).toEqual({
      oidc: {
        issuer: provider.issuer,
        client_id: PUBLIC_CLIENT_ID,
        audience: provider.audience,
        scope: 'openid email profile offline_access',
      },
      bootstrap_token: true,
    });
    const csp = (await server.http('GET', '/ui/')).headers.get('content-security-policy') ?? '';
    expect(csp.split('; ')).toContain(`connect-src 'self' ${provider.issuer}`);
    expect(csp.split('; ')).toContain("form-action 'self'");
  });

  it("signs in through the provider's own login form and comes back to the page it started from, as ada (operator)", async () => {
    await page.goto(`${server.baseUrl}/ui/routines/${routineId}/config`);
    await page.locator('#oidc-signin-button').waitFor();
    expect(await page.locator('#admin-token').isVisible()).toBe(true);
    await shot('oidc-01-sign-in-choices');
    await page.click('#oidc-signin-button');

    await signInAtProvider('ada@example.com');
    // Authorization code with PKCE (S256), state and nonce, the API as resource, back to the one registered URI.
    const [authorization] = authorizationRequests();
    const asked = Object.fromEntries(authorization?.searchParams ?? []);
    expect(asked).toMatchObject({
      client_id: PUBLIC_CLIENT_ID,
      redirect_uri: `${server.baseUrl}/ui/`,
      response_type: 'code',
      scope: 'openid email profile offline_access',
      code_challenge_method: 'S256',
      resource: provider.audience,
    });
    expect(asked.code_challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(asked.state).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(asked.nonce).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(asked.prompt).toBeUndefined();
    await page.waitForURL(`${server.baseUrl}/ui/routines/${routineId}/config`);
    await waitText('#whoami-name', 'ada@example.com');
    expect(await text('#whoami-role')).toBe('operator');
    await waitText('#webhook-state', 'Enabled');
    expect(await page.locator('#rotate').isVisible()).toBe(true);
    expect(await page.locator('#webhook-role-note').isVisible()).toBe(false);

    // The tokens live in the page's memory: storage holds only that this tab signed in, no cookie of ours, no code in the URL.
    const kept = await storage();
    expect(kept.session).toEqual({ 'wts.oidc.active': '1' });
    expect(kept.local).toBe(0);
    expect(kept.cookies).toBe('');
    expect(page.url()).not.toMatch(/code=|state=/);
    await shot('oidc-02-signed-in-as-ada');
  });

  it('rotates the secret as ada: the admin API takes the access token, and the new secret works', async () => {
    await page.click('#rotate');
    await page.click('#confirm-ok');
    await page.locator('#secret-panel').waitFor();
    const secret = await page.inputValue('#secret-value');
    expect(secret).toMatch(/^whsec_/);
    const url = await page.inputValue('#secret-url');
    const delivered = await server.deliver(url.slice(url.lastIndexOf('/') + 1), secret);
    expect(delivered.status).toBe(202);
    await shot('oidc-03-rotated-as-ada');
  });

  it('renews the access token with the refresh token at the provider, and the admin API takes the new one', async () => {
    // The page's own module (one instance per page): what its refresh timer calls before expiry.
    const renewal = (await page.evaluate(`import('/ui/assets/oidc-client.js').then(async (client) => {
      const before = client.accessToken();
      const renewed = await client.refresh();
      return { renewed, changed: client.accessToken() !== before, present: client.accessToken() !== null };
    })`)) as { renewed: boolean; changed: boolean; present: boolean };
    expect(renewal).toEqual({ renewed: true, changed: true, present: true });
    await page.click('#refresh-deliveries');
    await page.locator('#deliveries-body tr').first().waitFor();
    expect(await page.locator('#deliveries-error').isVisible()).toBe(false);
    expect(await text('#whoami-name')).toBe('ada@example.com');
  });

  it("a reload and another page sign in again without the form (the provider's session is alive)", async () => {
    const forms = loginForms().length;
    const before = authorizationRequests().length;
    await page.reload();
    await waitText('#whoami-name', 'ada@example.com');
    expect(page.url()).toBe(`${server.baseUrl}/ui/routines/${routineId}/config`);
    // Through the provider again, silently: prompt=none, and no login form.
    expect(
      authorizationRequests()
        .slice(before)
        .map((url) => url.searchParams.get('prompt')),
    ).toEqual(['none']);
    expect(loginForms()).toHaveLength(forms);

    await page.getByRole('link', { name: 'All routines' }).click();
    await page.waitForURL(`${server.baseUrl}/ui/`);
    await waitText('#whoami-name', 'ada@example.com');
    await page.locator('#routines-table').waitFor();
    // An operator: no accounts, routines or API keys to manage, and the page says why.
    await waitText('#api-keys-role', 'Managing API keys needs the admin role; you are an operator.');
    expect(await page.locator('#api-keys-admin').isVisible()).toBe(false);
    expect(await page.locator('#account-form').isVisible()).toBe(false);
    expect((await storage()).session).toEqual({ 'wts.oidc.active': '1' });
    expect(authorizationRequests().slice(before)).toHaveLength(2);
    expect(loginForms()).toHaveLength(forms);
  });

  it('sent nothing off this machine but what was blocked (the provider pages name web fonts)', () => {
    expectNothingOffMachineButWebFonts(ui);
  });
});
