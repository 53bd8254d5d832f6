/**
 * Signing in to the Config page with the organisation's identity provider, in a real browser
 * (Debian's headless Chromium) against a real OpenID provider (oidc-provider, with its own
 * development login form: test/support/oidc/provider.mjs) and the ingress verifying its access
 * tokens (OidcAccessTokenVerifier): the page's button → the provider's login form → back on the
 * page the sign-in started from, signed in as ada@example.com (operator); rotate works; a reload
 * signs in again without the form (prompt=none, the provider's session alive) and keeps no token
 * in storage; sign out ends the provider's session too, without the ID token in the logout URL. Screenshots go to test-artifacts/ui/.
 */
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { OidcAccessTokenVerifier } from '@wts/platform';
import { eventually } from '@wts/testing';
import { startOidcProvider, type RunningOidcProvider } from '../../../../test/support/oidc-provider.harness';
import { freePort } from '../../../../test/support/service-processes';
import { UiTestServer, artifactsDir, launchChromium } from '../../../../test/support/ui-test-server';

jest.setTimeout(30_000);

declare const sessionStorage: { readonly length: number; key(index: number): string | null; getItem(key: string): string | null };
declare const localStorage: { readonly length: number };
declare const document: { readonly cookie: string };

const PUBLIC_CLIENT_ID = 'wts-config-page';

describe('Config page: sign in with the organisation (browser, real OpenID provider)', () => {
  let provider: RunningOidcProvider;
  let server: UiTestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let routineId = '';
  const artifacts = artifactsDir();
  const problems: string[] = [];
  /** Requests the browser tried to send anywhere but this machine (the provider's pages name web fonts). */
  const offMachine: string[] = [];
  /** Every page the browser went to at the provider, in order. */
  const atProvider: URL[] = [];
  const authorizationRequests = (): URL[] => atProvider.filter((url) => url.pathname === '/auth');
  const loginForms = (): URL[] => atProvider.filter((url) => url.pathname.startsWith('/interaction/'));

  const shot = (name: string): Promise<Buffer> => page.screenshot({ path: join(artifacts, `${name}.png`), fullPage: true });
  const text = async (selector: string): Promise<string> => (await page.locator(selector).textContent()) ?? '';
  const waitText = (selector: string, hasText: string | RegExp): Promise<void> => page.locator(selector, { hasText }).first().waitFor();
  const storage = (): Promise<{ session: Record<string, string>; local: number; cookies: string }> =>
    page.evaluate(() => {
      const session: Record<string, string> = {};
      for (let i = 0; i < sessionStorage.length; i += 1) {
        const key = sessionStorage.key(i) as string;
        session[key] = sessionStorage.getItem(key) as string;
      }
      return { session, local: localStorage.length, cookies: document.cookie };
    });

  /** The provider's own login form (devInteractions): any password. */
  async function signInAtProvider(login: string): Promise<void> {
    await page.waitForURL((url) => url.href.startsWith(`${provider.issuer}/`));
    await page.locator('input[name="login"]').waitFor();
    await page.fill('input[name="login"]', login);
    await page.fill('input[name="password"]', 'any password will do');
    await page.click('button[type="submit"]');
  }

  beforeAll(async () => {
    browser = await launchChromium();
    const port = await freePort();
    // The one redirect URI an operator registers at the provider: the page's origin + /ui/.
    provider = await startOidcProvider({ publicClientId: PUBLIC_CLIENT_ID, redirectUris: [`http://127.0.0.1:${port}/ui/`] });
    server = await UiTestServer.start(
      {},
      {
        port,
        accessTokens: new OidcAccessTokenVerifier({
          issuer: provider.issuer,
          audience: provider.audience,
          rolesClaim: 'roles',
          jwksCacheMaxAgeMs: 60_000,
        }),
        signIn: {
          issuer: provider.issuer,
          client_id: PUBLIC_CLIENT_ID,
          audience: provider.audience,
          scope: 'openid email profile offline_access',
        },
      },
    );
    const account = await server.createAccount('ops@example.com');
    routineId = (await server.createRoutine({ name: 'Triage alerts', account_scope: [account.id] })).id;
    await server.adminOk(
      'POST',
      `/admin/routines/${routineId}/webhook/enable`,
      { default_account: 'ops@example.com', account_override_allowed: false },
      200,
    );

    context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    await context.route(
      (url) => url.hostname !== '127.0.0.1',
      (route) => {
        offMachine.push(route.request().url());
        return route.abort();
      },
    );
    page = await context.newPage();
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('request', (request) => {
      if (request.isNavigationRequest() && request.url().startsWith(`${provider.issuer}/`)) atProvider.push(new URL(request.url()));
    });
    page.on('dialog', (dialog) => {
      problems.push(`dialog: ${dialog.message()}`);
      void dialog.dismiss();
    });
    page.on('console', (message) => {
      if (/Content Security Policy|Trusted Type/i.test(message.text())) problems.push(`csp: ${message.text()}`);
    });
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.close();
    await provider?.stop();
  });

  afterEach(() => {
    expect(problems).toEqual([]);
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

  it("signs out: the tokens are forgotten and the provider's session ends, so the next sign-in asks again", async () => {
    // RP-initiated logout names the client and where to come back, never the ID token (a URL ends
    // up in the provider's logs and the browser's history). First the page's module itself, while
    // it still holds every token (the button forgets them first): its logout request is answered
    // 204 here, so the page stays.
    const isLogout = (url: URL): boolean => url.origin === provider.issuer && url.pathname === '/session/end';
    const logouts: URL[] = [];
    await page.route(isLogout, (route) => {
      logouts.push(new URL(route.request().url()));
      return route.fulfill({ status: 204 });
    });
    expect(await page.evaluate(`import('/ui/assets/oidc-client.js').then((client) => client.signOut())`)).toBe(true);
    await eventually(async () => logouts[0], 5_000, "the module's logout request");
    await page.unroute(isLogout);
    const visited = atProvider.length;
    await page.click('#signout');
    await page.waitForURL((url) => url.href.startsWith(`${provider.issuer}/`));
    for (const logout of [logouts[0]!, atProvider[visited]!]) {
      expect(logout.pathname).toBe('/session/end');
      expect(Object.fromEntries(logout.searchParams)).toEqual({
        client_id: PUBLIC_CLIENT_ID,
        post_logout_redirect_uri: `${server.baseUrl}/ui/`,
      });
      expect(logout.href).not.toMatch(/eyJ[A-Za-z0-9_-]+\.eyJ/);
    }
    await page.click('button[value="yes"]');
    await page.waitForURL(`${server.baseUrl}/ui/`);
    await page.locator('#oidc-signin-button').waitFor();
    expect(await page.locator('#whoami').isVisible()).toBe(false);
    expect(await page.locator('#main').isVisible()).toBe(false);
    expect((await storage()).session).toEqual({});

    // No silent sign-in after a reload; the provider asks for the login again.
    const before = authorizationRequests().length;
    await page.reload();
    await page.locator('#oidc-signin-button').waitFor();
    expect(authorizationRequests()).toHaveLength(before);
    await page.click('#oidc-signin-button');
    await page.locator('input[name="login"]').waitFor();
    expect(
      authorizationRequests()
        .slice(before)
        .map((url) => url.searchParams.get('prompt')),
    ).toEqual([null]);
    await shot('oidc-04-signed-out-provider-asks-again');
  });

  it('a reload once the provider has forgotten the session asks for a click, with why (login_required), and does not loop', async () => {
    // The login form the previous step opened: vic, a viewer.
    await signInAtProvider('vic@example.com');
    await page.waitForURL(`${server.baseUrl}/ui/`);
    await waitText('#whoami-name', 'vic@example.com');
    expect(await text('#whoami-role')).toBe('viewer');
    await waitText('#routine-form-role', 'Creating a routine needs the admin role; you are a viewer.');

    await context.clearCookies();
    const before = authorizationRequests().length;
    await page.reload();
    await waitText('#oidc-signin-error', 'Your session with your organisation has ended: sign in again.');
    expect(
      authorizationRequests()
        .slice(before)
        .map((url) => url.searchParams.get('prompt')),
    ).toEqual(['none']);
    expect(await page.locator('#main').isVisible()).toBe(false);
    expect((await storage()).session).toEqual({});
    await shot('oidc-05-provider-session-ended');
  });

  it('sent nothing off this machine but what was blocked (the provider pages name web fonts)', () => {
    for (const url of offMachine) expect(url).toMatch(/^https:\/\/fonts\.(googleapis|gstatic)\.com\//);
  });
});
