/**
 * Harness of the Config page's Webhook section specs (config-page and config-page-safety e2e specs):
 * headless Chromium (playwright-core) and an in-process ingress and dispatcher, seeded with the
 * accounts and routines they read (one in scope, one outside, one inactive, one with a hostile
 * address; "Triage alerts", the blocked "Outreach bot", and one with a hostile name), and one tab
 * with clipboard access. Every dialog, page error and CSP or Trusted Types violation of every page
 * load is kept: none allowed after each test.
 */
import type { Page } from 'playwright-core';
import { pageHelpers, startedOne, tabHooks, type PageHelpers, type StartedTab } from './page-test.kit';
import { UiTestServer, launchChromium } from './ui-test-server';

export const XSS_NAME = `Triage <img src=x onerror="alert('routine')"><script>window.__xss='routine'</script>`;
export const XSS_EMAIL = `"<img src=x onerror=alert('email')>"@example.com`;
export const XSS_ALIAS = `"<script>window.__xss='alias'</script>"@example.com`;

interface PolicyViolation {
  readonly effectiveDirective: string;
  readonly blockedURI: string;
  readonly sourceFile: string;
  readonly lineNumber: number;
}
declare const document: { addEventListener(type: 'securitypolicyviolation', listener: (event: PolicyViolation) => void): void };
declare const window: object;

/** The spec's view of it, usable from its own beforeAll on. */
export interface ConfigPageHarness extends Pick<PageHelpers, 'shot' | 'text' | 'waitText' | 'visible'> {
  readonly server: UiTestServer;
  readonly page: Page;
  /** Reported violations; a spec that provokes one on purpose empties it. */
  readonly cspViolations: string[];
  /** What was seeded, filled in by beforeAll. */
  readonly seeded: { scoped: { id: string; email: string }; triageId: string; blockedId: string; xssId: string };
}

/** Starts all of it in beforeAll and closes it in afterAll of the describe it is called in. */
export function useConfigPage(): ConfigPageHarness {
  const started: Partial<StartedTab> = {};
  const server = startedOne(started, 'server', 'the Config page harness');
  const page = startedOne(started, 'page', 'the Config page harness');
  const dialogs: string[] = [];
  const pageErrors: string[] = [];
  const cspViolations: string[] = [];
  const seeded = { scoped: { id: '', email: '' }, triageId: '', blockedId: '', xssId: '' };

  beforeAll(async () => {
    // The browser first: when Chromium is missing this suite fails at once with the reason, and
    // nothing else is left starting after jest tears the suite down.
    started.browser = await launchChromium();
    started.server = await UiTestServer.start();
    seeded.scoped = await server.createAccount('ops@example.com', { aliases: ['oncall@example.com'] });
    const outside = await server.createAccount('outsider@example.com');
    const inactive = await server.createAccount('former@example.com');
    await server.adminOk('PATCH', `/admin/accounts/${inactive.id}`, { active: false }, 200);
    const xssAccount = await server.createAccount(XSS_EMAIL, { aliases: [XSS_ALIAS] });

    seeded.triageId = (await server.createRoutine({ name: 'Triage alerts', account_scope: [seeded.scoped.id, inactive.id] })).id;
    seeded.blockedId = (
      await server.createRoutine({
        name: 'Outreach bot',
        account_scope: [seeded.scoped.id],
        mode: 'autonomous',
        tools: [{ name: 'send_email', sends_externally: true }],
      })
    ).id;
    seeded.xssId = (await server.createRoutine({ name: XSS_NAME, account_scope: [xssAccount.id, outside.id] })).id;

    started.context = await started.browser.newContext({ viewport: { width: 1200, height: 900 } });
    await started.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.baseUrl });
    started.page = await started.context.newPage();
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => {
      if (/Content Security Policy|Trusted Type/i.test(message.text())) cspViolations.push(message.text());
    });
    // Every CSP (and Trusted Types) violation of every page load, reported as it happens.
    await page.exposeFunction('__reportCspViolation', (violation: string) => cspViolations.push(violation));
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (event) => {
        const report = (window as unknown as { __reportCspViolation: (text: string) => void }).__reportCspViolation;
        void report(`${event.effectiveDirective} blocked ${event.blockedURI || 'inline'} at ${event.sourceFile}:${event.lineNumber}`);
      });
    });
  });

  tabHooks(started, [dialogs, pageErrors, cspViolations]);

  const { shot, text, waitText, visible } = pageHelpers(() => page);
  return { server, page, cspViolations, seeded, shot, text, waitText, visible };
}
