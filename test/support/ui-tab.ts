import type { Browser, BrowserContext, BrowserContextOptions, Page, Request } from 'playwright-core';
import { startedOne, waitText, watchTab } from './page-test.kit';
import { UiTestServer, launchChromium, type UiServerOptions } from './ui-test-server';

/** What a test watches on each tab: page errors, dialogs and CSP reports (problems), 403s from the admin API (refused), and its own requests. */
export interface TabWatch {
  readonly problems: string[];
  readonly refused: string[];
  readonly onRequest?: (request: Request) => void;
}

/**
 * A fresh browser context and tab (kept in `contexts`, for the test to close), watched, on `url`,
 * signed in with the admin token field: resolves once the page's main part shows and the webhook
 * state is filled in.
 */
export async function openSignedInTab(
  browser: Browser,
  contexts: BrowserContext[],
  url: string,
  token: string,
  watch: TabWatch,
  options: BrowserContextOptions = {},
): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 }, ...options });
  contexts.push(context);
  const tab = await context.newPage();
  watchTab403(tab, watch);
  if (watch.onRequest) tab.on('request', watch.onRequest);
  await tab.goto(url);
  await tab.fill('#admin-token', token);
  await tab.click('#signin-submit');
  await tab.locator('#main').waitFor();
  await waitText(tab, '#webhook-state', /\S/);
  return tab;
}

/** Watches the tab for problems (dialogs too, unless `dialogs` is false) and for 403s from the admin API. */
function watchTab403(tab: Page, watch: TabWatch, dialogs = true): void {
  watchTab(tab, watch.problems, { dialogs });
  tab.on('response', (response) => {
    if (response.status() === 403 && new URL(response.url()).pathname.startsWith('/admin/')) watch.refused.push(response.url());
  });
}

/**
 * The previous context closed and a fresh one (nothing kept: 1200 × 900, made ready by `prepare`)
 * with one tab, watched, signed in at `url` with `token`: resolves once the page says who is signed in.
 */
export async function signInFresh(
  browser: Browser,
  previous: BrowserContext | undefined,
  url: string,
  token: string,
  watch: TabWatch & { readonly dialogs?: boolean },
  prepare: (context: BrowserContext) => Promise<void> = async () => undefined,
): Promise<{ context: BrowserContext; page: Page }> {
  await previous?.close();
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  await prepare(context);
  const page = await context.newPage();
  watchTab403(page, watch, watch.dialogs);
  await page.goto(url);
  await page.fill('#admin-token', token);
  await page.click('#signin-submit');
  await page.locator('#whoami').waitFor();
  return { context, page };
}

/** The datetime-local value `ms` from now in the tab's own time zone (its context's timezoneId), to the second. */
export function localDateTimeIn(tab: Page, ms: number): Promise<string> {
  return tab.evaluate((offsetMs) => {
    const at = new Date(Date.now() + offsetMs);
    const pad = (value: number): string => String(value).padStart(2, '0');
    return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}T${pad(at.getHours())}:${pad(at.getMinutes())}:${pad(at.getSeconds())}`;
  }, ms);
}

/** The spec's view of useTabsTest, usable from its own beforeAll on. */
export interface TabsTest {
  readonly server: UiTestServer;
  readonly browser: Browser;
  /** Problems and refusals seen on every tab opened with openTab: none allowed after each test. */
  readonly problems: string[];
  readonly refused: string[];
  /** A fresh tab signed in with `token` on `url` (see openSignedInTab), watched; its 403s kept in `refused` unless `refusals` is 'ignored'. */
  openTab(url: string, token: string, options?: BrowserContextOptions, refusals?: 'watched' | 'ignored'): Promise<Page>;
}

/**
 * A browser and a UI test server started in beforeAll of the describe it is called in, the tabs
 * its tests open (each in a context of its own, watched, with `options.onRequest` too) closed in afterAll
 * with them; no problem and no 403 from the admin API allowed after each test.
 */
export function useTabsTest(options: { onRequest?: (request: Request) => void; serverOptions?: UiServerOptions } = {}): TabsTest {
  const { onRequest } = options;
  const started: { server?: UiTestServer; browser?: Browser } = {};
  const server = startedOne(started, 'server', 'the tabs test');
  const browser = startedOne(started, 'browser', 'the tabs test');
  const contexts: BrowserContext[] = [];
  const watch: TabWatch = { problems: [], refused: [], ...(onRequest ? { onRequest } : {}) };

  beforeAll(async () => {
    started.browser = await launchChromium();
    started.server = await UiTestServer.start({}, options.serverOptions);
  });

  afterAll(async () => {
    for (const context of contexts) await context.close();
    await started.browser?.close();
    await started.server?.close();
  });

  afterEach(() => {
    expect(watch.problems).toEqual([]);
    expect(watch.refused).toEqual([]);
  });

  return {
    server,
    browser,
    problems: watch.problems,
    refused: watch.refused,
    openTab: (url, token, options = {}, refusals = 'watched') =>
      openSignedInTab(browser, contexts, url, token, refusals === 'watched' ? watch : { ...watch, refused: [] }, options),
  };
}

/** The spec's view of useSignInTest, usable from its own beforeAll on. */
export interface SignInTest {
  readonly server: UiTestServer;
  /** Problems seen on every tab signIn opened: none allowed after each test. */
  readonly problems: string[];
  /** 403s from the admin API those tabs received (the spec checks them where it means to). */
  readonly refused: string[];
  /** The previous tab's context closed, a fresh one signed in at `url` with `token` (see signInFresh). */
  signIn(url: string, token: string): Promise<Page>;
}

/**
 * A browser and a UI test server started in beforeAll of the describe it is called in, closed in
 * afterAll with the last tab signIn opened (dialogs are problems unless `dialogs` is false; each
 * fresh context made ready by `prepare`); no problem allowed after each test.
 */
export function useSignInTest(
  options: { dialogs?: boolean; prepare?: (context: BrowserContext, server: UiTestServer) => Promise<void> } = {},
): SignInTest {
  const started: { server?: UiTestServer; browser?: Browser; context?: BrowserContext } = {};
  const server = startedOne(started, 'server', 'the sign-in test');
  const browser = startedOne(started, 'browser', 'the sign-in test');
  const watch = { problems: [] as string[], refused: [] as string[], dialogs: options.dialogs ?? true };

  beforeAll(async () => {
    started.browser = await launchChromium();
    started.server = await UiTestServer.start();
  });

  afterAll(async () => {
    await started.context?.close();
    await started.browser?.close();
    await started.server?.close();
  });

  afterEach(() => {
    expect(watch.problems).toEqual([]);
  });

  return {
    server,
    problems: watch.problems,
    refused: watch.refused,
    signIn: async (url, token) => {
      const prepare = options.prepare ?? (async () => undefined);
      const fresh = await signInFresh(browser, started.context, url, token, watch, (context) => prepare(context, server));
      started.context = fresh.context;
      return fresh.page;
    },
  };
}

/** Seeds what the sign-in specs start from: an API key per role ("<role> automation"), ops@example.com, and "Triage alerts" scoped to it with its webhook enabled. */
export async function seedTriageRoutine<R extends 'viewer' | 'operator' | 'admin'>(
  server: UiTestServer,
  roles: readonly R[],
): Promise<{ keys: Record<R, string>; routineId: string; webhookId: string; secret: string }> {
  const keys = {} as Record<R, string>;
  for (const role of roles) keys[role] = await server.createApiKey(`${role} automation`, role);
  const account = await server.createAccount('ops@example.com');
  const routineId = (await server.createRoutine({ name: 'Triage alerts', account_scope: [account.id] })).id;
  const enabled = await server.enableWebhook(routineId, 'ops@example.com');
  return { keys, routineId, webhookId: enabled.webhook_id as string, secret: enabled.secret as string };
}
