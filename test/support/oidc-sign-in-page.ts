/**
 * Harness of the Config page's sign-in with the organisation (oidc-sign-in and oidc-sign-out
 * e2e specs): headless Chromium (playwright-core), a real OpenID provider (oidc-provider, with its
 * own development login form: test/support/oidc/provider.mjs) whose one registered redirect URI is
 * the page's, and the UI test server verifying its access tokens (OidcAccessTokenVerifier). One
 * tab, watched: page errors, dialogs and CSP reports are problems (none allowed after each test),
 * requests off this machine are blocked and kept, and every page the tab went to at the provider.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { OidcAccessTokenVerifier } from '@wts/platform';
import { startOidcProvider, type RunningOidcProvider } from './oidc-provider.harness';
import { pageHelpers, startedOne, tabHooks, watchTab, type PageHelpers, type StartedTab } from './page-test.kit';
import { reservePort } from './service-processes';
import { UiTestServer, launchChromium } from './ui-test-server';

declare const sessionStorage: { readonly length: number; key(index: number): string | null; getItem(key: string): string | null };
declare const localStorage: { readonly length: number };
declare const document: { readonly cookie: string };

export const PUBLIC_CLIENT_ID = 'wts-config-page';

/** The spec's view of it: provider, server, context and page usable from its own beforeAll on. */
export interface OidcSignInPage extends Pick<PageHelpers, 'shot' | 'text' | 'waitText'> {
  readonly provider: RunningOidcProvider;
  readonly server: UiTestServer;
  readonly context: BrowserContext;
  readonly page: Page;
  /** Requests the browser tried to send anywhere but this machine (the provider's pages name web fonts). */
  readonly offMachine: readonly string[];
  /** Every page the browser went to at the provider, in order. */
  readonly atProvider: readonly URL[];
  authorizationRequests(): URL[];
  loginForms(): URL[];
  /** What the page keeps: sessionStorage's entries, how many localStorage has, and its cookies. */
  storage(): Promise<{ session: Record<string, string>; local: number; cookies: string }>;
  /** The provider's own login form (devInteractions): any password. */
  signInAtProvider(login: string): Promise<void>;
}

interface Started extends StartedTab {
  provider: RunningOidcProvider;
}

/** Starts all of it in beforeAll and closes it in afterAll of the describe it is called in. */
export function useOidcSignInPage(): OidcSignInPage {
  const started: Partial<Started> = {};
  const provider = startedOne(started, 'provider', 'the sign-in page');
  const server = startedOne(started, 'server', 'the sign-in page');
  const context = startedOne(started, 'context', 'the sign-in page');
  const page = startedOne(started, 'page', 'the sign-in page');
  const problems: string[] = [];
  const offMachine: string[] = [];
  const atProvider: URL[] = [];

  beforeAll(async () => {
    started.browser = await launchChromium();
    // Held while the provider starts (it listens on a port of its own), released just before the page's server takes it.
    const reserved = await reservePort();
    const { port } = reserved;
    // The one redirect URI an operator registers at the provider: the page's origin + /ui/.
    started.provider = await startOidcProvider({
      publicClientId: PUBLIC_CLIENT_ID,
      redirectUris: [`http://127.0.0.1:${port}/ui/`],
    }).finally(() => reserved.release());
    started.server = await UiTestServer.start(
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

    started.context = await started.browser.newContext({ viewport: { width: 1200, height: 900 } });
    await context.route(
      (url) => url.hostname !== '127.0.0.1',
      (route) => {
        offMachine.push(route.request().url());
        return route.abort();
      },
    );
    started.page = await context.newPage();
    watchTab(started.page, problems);
    page.on('request', (request) => {
      if (request.isNavigationRequest() && request.url().startsWith(`${provider.issuer}/`)) atProvider.push(new URL(request.url()));
    });
  });

  tabHooks(started, [problems], async () => {
    await started.provider?.stop();
  });

  return {
    provider,
    server,
    context,
    page,
    offMachine,
    atProvider,
    authorizationRequests: () => atProvider.filter((url) => url.pathname === '/auth'),
    loginForms: () => atProvider.filter((url) => url.pathname.startsWith('/interaction/')),
    ...pageHelpers(() => page),
    storage: () =>
      page.evaluate(() => {
        const session: Record<string, string> = {};
        for (let i = 0; i < sessionStorage.length; i += 1) {
          const key = sessionStorage.key(i) as string;
          session[key] = sessionStorage.getItem(key) as string;
        }
        return { session, local: localStorage.length, cookies: document.cookie };
      }),
    signInAtProvider: async (login) => {
      await page.waitForURL((url) => url.href.startsWith(`${provider.issuer}/`));
      await page.locator('input[name="login"]').waitFor();
      await page.fill('input[name="login"]', login);
      await page.fill('input[name="password"]', 'any password will do');
      await page.click('button[type="submit"]');
    },
  };
}

/** The tab sent nothing off this machine but what was blocked: the provider pages name web fonts. */
export function expectNothingOffMachineButWebFonts(ui: OidcSignInPage): void {
  for (const url of ui.offMachine) expect(url).toMatch(/^https:\/\/fonts\.(googleapis|gstatic)\.com\//);
}
