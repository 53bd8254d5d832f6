import type { Browser, BrowserContext, BrowserContextOptions, Page, Request } from 'playwright-core';

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
  tab.on('pageerror', (error) => watch.problems.push(`page error: ${error.message}`));
  tab.on('dialog', (dialog) => {
    watch.problems.push(`dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
  tab.on('console', (message) => {
    if (/Content Security Policy|Trusted Type/i.test(message.text())) watch.problems.push(`csp: ${message.text()}`);
  });
  tab.on('response', (response) => {
    if (response.status() === 403 && new URL(response.url()).pathname.startsWith('/admin/')) watch.refused.push(response.url());
  });
  if (watch.onRequest) tab.on('request', watch.onRequest);
  await tab.goto(url);
  await tab.fill('#admin-token', token);
  await tab.click('#signin-submit');
  await tab.locator('#main').waitFor();
  await tab.locator('#webhook-state', { hasText: /\S/ }).first().waitFor();
  return tab;
}

/** The datetime-local value `ms` from now in the tab's own time zone (its context's timezoneId), to the second. */
export function localDateTimeIn(tab: Page, ms: number): Promise<string> {
  return tab.evaluate((offsetMs) => {
    const at = new Date(Date.now() + offsetMs);
    const pad = (value: number): string => String(value).padStart(2, '0');
    return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}T${pad(at.getHours())}:${pad(at.getMinutes())}:${pad(at.getSeconds())}`;
  }, ms);
}
