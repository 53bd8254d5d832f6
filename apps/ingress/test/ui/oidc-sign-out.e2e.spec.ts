/**
 * Signing out of the Config page signed in with the organisation's identity provider, in a real
 * browser (Debian's headless Chromium) against a real OpenID provider (oidc-provider, with its own
 * development login form): the tokens are forgotten and the provider's session ends too — its
 * logout URL names the client and where to come back, never the ID token — so the next sign-in
 * asks again; a session the provider forgot asks for a click, with why, and does not loop.
 * Signing in: oidc-sign-in.e2e.spec.ts. Screenshots go to test-artifacts/ui/.
 */
import { eventually } from '@wts/testing';
import { PUBLIC_CLIENT_ID, expectNothingOffMachineButWebFonts, useOidcSignInPage } from '../../../../test/support/oidc-sign-in-page';

jest.setTimeout(30_000);

describe('Config page: sign out of the organisation (browser, real OpenID provider)', () => {
  const ui = useOidcSignInPage();
  const { provider, server, context, page, atProvider, authorizationRequests, shot, text, waitText, storage, signInAtProvider } = ui;

  /** Signed in through the provider's login form as ada (operator), on the routines page. */
  beforeAll(async () => {
    await page.goto(`${server.baseUrl}/ui/`);
    await page.click('#oidc-signin-button');
    await signInAtProvider('ada@example.com');
    await waitText('#whoami-name', 'ada@example.com');
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
    expectNothingOffMachineButWebFonts(ui);
  });
});
