/**
 * What the Chromium page tests (apps/ingress/test/ui/*.e2e.spec.ts) share: waiting for a text,
 * reading one, screenshots in test-artifacts/ui/, watching a tab for problems (page errors, dialogs,
 * CSP and Trusted Types reports), opening a routine's Config page signed in with the bootstrap token,
 * and usePageTest: a browser, a UI test server and one watched tab started in beforeAll, closed in
 * afterAll, with no problem allowed after each test.
 */
import { eventually } from '@wts/testing';
import { join } from 'node:path';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { UI_ADMIN_TOKEN, UiTestServer, artifactsDir, launchChromium, type UiServerOptions } from './ui-test-server';

/** Resolves once an element matching `selector` shows `hasText` (the first such, if there are more). */
export function waitText(page: Page, selector: string, hasText: string | RegExp, timeout?: number): Promise<void> {
  return page
    .locator(selector, { hasText })
    .first()
    .waitFor(timeout === undefined ? undefined : { timeout });
}

/** The text of the element matching `selector` ('' when it has none). */
export async function textOf(page: Page, selector: string): Promise<string> {
  return (await page.locator(selector).textContent()) ?? '';
}

/** A full-page screenshot in test-artifacts/ui/`name`.png. */
export function shotOf(page: Page, name: string): Promise<Buffer> {
  return page.screenshot({ path: join(artifactsDir(), `${name}.png`), fullPage: true });
}

/** The page's document, as the function focusedId hands the tab reads it (this file is compiled without the DOM types). */
declare const document: { activeElement: { id: string } | null };

/** The id of the element that has the focus ('' when none has one). */
export function focusedId(page: Page): Promise<string> {
  return page.evaluate(() => document.activeElement?.id ?? '');
}

/**
 * Enter on the button `control` opens the confirm dialog: its title, each of `says` in its message,
 * the focus on Cancel (screenshot `shot`); Escape closes it again with the focus back on `control`.
 */
export async function confirmThenEscape(
  page: Page,
  control: string,
  expected: { readonly title: string; readonly says: readonly string[]; readonly shot: string },
): Promise<void> {
  await page.focus(`#${control}`);
  await page.keyboard.press('Enter');
  await page.locator('#confirm-dialog').waitFor();
  expect(await textOf(page, '#confirm-title')).toBe(expected.title);
  const message = await textOf(page, '#confirm-message');
  for (const phrase of expected.says) expect(message).toContain(phrase);
  expect(await focusedId(page)).toBe('confirm-cancel');
  await shotOf(page, expected.shot);
  await page.keyboard.press('Escape');
  await page.locator('#confirm-dialog').waitFor({ state: 'hidden' });
  expect(await focusedId(page)).toBe(control);
}

/** Every value the page holds in its fields, and its markup: where a secret could be seen. */
export async function everythingShown(page: Page): Promise<string> {
  const values = await page
    .locator('input, textarea')
    .evaluateAll((fields) => fields.map((field) => (field as unknown as { value: string }).value));
  return `${await page.content()}\n${values.join('\n')}`;
}

/** What is a problem on a tab: page errors, CSP and Trusted Types reports, and (unless `dialogs` is false) any dialog, dismissed. */
export function watchTab(tab: Page, problems: string[], options: { dialogs?: boolean } = {}): void {
  tab.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  if (options.dialogs !== false) {
    tab.on('dialog', (dialog) => {
      problems.push(`dialog: ${dialog.message()}`);
      void dialog.dismiss();
    });
  }
  tab.on('console', (message) => {
    if (/Content Security Policy|Trusted Type/i.test(message.text())) problems.push(`csp: ${message.text()}`);
  });
}

/**
 * Goes to the routine's Config page, signs in with the bootstrap token if asked, and resolves once
 * the webhook state is filled in. The page shows the sign-in or itself only after it asked the server
 * how to sign in (after the load event), so this waits for one of the two rather than looking once:
 * a look right after the load raced that answer under load, and the test then waited for a page that
 * was asking to sign in.
 */
export async function openConfigPage(page: Page, baseUrl: string, routineId: string): Promise<void> {
  await page.goto(`${baseUrl}/ui/routines/${routineId}/config`);
  await page.locator('#signin:visible, #main:visible').first().waitFor();
  if (await page.locator('#signin').isVisible()) {
    await page.fill('#admin-token', UI_ADMIN_TOKEN);
    await page.click('#signin-submit');
  }
  await page.locator('#main').waitFor();
  await waitText(page, '#webhook-state', /\S/);
}

/**
 * Until `done` answers true, clicks `button` (a refresh), waits for the admin API's answer, and asks
 * again, through eventually (`timeoutMs` in all): for what the page shows a moment after the store
 * has it. One refresh at a time: a refresh clicked while another was still loading could answer
 * after a later "Show older" and redraw the listing under the test.
 */
export async function refreshUntil(
  page: Page,
  button: string,
  done: () => Promise<boolean>,
  what: string,
  timeoutMs = 4_000,
): Promise<void> {
  await eventually(
    async () => {
      if (await done()) return true;
      const answered = page.waitForResponse((response) => response.request().method() === 'GET' && response.url().includes('/admin/'), {
        timeout: timeoutMs,
      });
      await page.click(button);
      await answered;
      return false;
    },
    timeoutMs,
    what,
  );
}

/** A view of `started[name]` that a spec can hold before beforeAll made it (as useIngressTestApp's): its methods bound to it. */
export function startedOne<S extends object, K extends keyof S>(started: Partial<S>, name: K, what: string): NonNullable<S[K]> {
  return new Proxy({} as NonNullable<S[K]>, {
    get(_target, property) {
      const target = started[name] as object | undefined;
      if (!target) throw new Error(`${what}'s ${String(name)} is used (.${String(property)}) before beforeAll made it`);
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** What a browser harness starts in its beforeAll, filled in as it goes (startedOne reads it). */
export interface StartedTab {
  server: UiTestServer;
  browser: Browser;
  context: BrowserContext;
  page: Page;
}

/**
 * In the describe it is called in: after each test, each list of `watched` (problems seen) must be
 * empty; after all, closes what was started (the tab's context, the browser, the server), then `also`.
 */
export function tabHooks(
  started: Partial<StartedTab>,
  watched: readonly (readonly string[])[],
  also: () => Promise<void> = async () => undefined,
): void {
  afterEach(() => {
    for (const list of watched) expect(list).toEqual([]);
  });
  afterAll(async () => {
    await started.context?.close();
    await started.browser?.close();
    await started.server?.close();
    await also();
  });
}

export interface PageTestOptions {
  /** The tab's viewport (default 1200 × 1000). */
  readonly viewport?: BrowserContextOptions['viewport'];
  /** The server's configuration and options (UiTestServer.start's arguments). */
  readonly serverConfig?: Parameters<typeof UiTestServer.start>[0];
  readonly serverOptions?: UiServerOptions;
  /** Whether a dialog is a problem (default true). */
  readonly dialogs?: boolean;
}

/** The helpers on a spec's tab: `tab()` answers the tab they act on when called (a spec may open a fresh one per test); `target` another. */
export interface PageHelpers {
  shot(name: string, target?: Page): Promise<Buffer>;
  text(selector: string, target?: Page): Promise<string>;
  waitText(selector: string, hasText: string | RegExp, target?: Page, timeout?: number): Promise<void>;
  visible(selector: string, target?: Page): Promise<boolean>;
  everythingShown(target?: Page): Promise<string>;
}

export function pageHelpers(tab: () => Page): PageHelpers {
  return {
    shot: (name, target = tab()) => shotOf(target, name),
    text: (selector, target = tab()) => textOf(target, selector),
    waitText: (selector, hasText, target = tab(), timeout) => waitText(target, selector, hasText, timeout),
    visible: (selector, target = tab()) => target.locator(selector).isVisible(),
    everythingShown: (target = tab()) => everythingShown(target),
  };
}

/** The spec's view of it, usable from its own beforeAll on; the helpers act on its one tab. */
export interface PageTest extends PageHelpers {
  readonly server: UiTestServer;
  readonly browser: Browser;
  readonly page: Page;
  /** Problems seen on the tab: none allowed after each test. */
  readonly problems: string[];
  openConfig(routineId: string): Promise<void>;
}

/** Starts a browser, a UI test server and one watched tab in beforeAll of the describe it is called in, and closes them in afterAll. */
export function usePageTest(options: PageTestOptions = {}): PageTest {
  const started: Partial<StartedTab> = {};
  const server = startedOne(started, 'server', 'the page test');
  const browser = startedOne(started, 'browser', 'the page test');
  const page = startedOne(started, 'page', 'the page test');
  const problems: string[] = [];

  beforeAll(async () => {
    started.browser = await launchChromium();
    started.server = await UiTestServer.start(options.serverConfig, options.serverOptions);
    started.context = await started.browser.newContext({ viewport: options.viewport ?? { width: 1200, height: 1000 } });
    started.page = await started.context.newPage();
    watchTab(started.page, problems, { dialogs: options.dialogs });
  });

  tabHooks(started, [problems]);

  return {
    server,
    browser,
    page,
    problems,
    ...pageHelpers(() => page),
    openConfig: (routineId) => openConfigPage(page, server.baseUrl, routineId),
  };
}
