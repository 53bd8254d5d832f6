/**
 * The audit trail on the Config page, in a real browser (Debian's headless Chromium): a routine's
 * trail after a rotate made from the page ("Secret rotated by API key "operator automation", 14:02"),
 * newest first, with a refused attempt standing out, paged with next_cursor; and everyone's trail
 * on the routine list, filtered by actor, for a viewer. The entries come from writes made through
 * the admin API and the page (GET /admin/audit reads them back). Screenshots go to test-artifacts/ui/.
 */
import { eventually } from '@wts/testing';
import type { Page } from 'playwright-core';
import { pageHelpers, refreshUntil } from '../../../../test/support/page-test.kit';
import { seedTriageRoutine, useSignInTest } from '../../../../test/support/ui-tab';

jest.setTimeout(30_000);

type Role = 'viewer' | 'operator';

/** "14:02" (today, local time, as the page writes it). */
const HOUR_MINUTE = /\d{1,2}[:.]\d{2}/;

describe('Config page: the audit trail (browser)', () => {
  const { server, signIn: signInAt } = useSignInTest({ dialogs: false });
  let page: Page;
  let keys = {} as Record<Role, string>;
  let routineId = '';

  const { shot } = pageHelpers(() => page);
  const lines = (): Promise<string[]> => page.locator('#audit-list > li').allTextContents();
  const rotate = (token: string): Promise<{ status: number }> =>
    server.admin('POST', `/admin/routines/${routineId}/webhook/rotate`, undefined, token);

  /** Presses Refresh until the newest line reads `expected` (entries follow the store within moments). */
  async function refreshUntilNewest(expected: RegExp): Promise<void> {
    await refreshUntil(
      page,
      '#refresh-audit',
      async () => {
        const [newest] = await lines();
        return newest !== undefined && expected.test(newest);
      },
      `the newest audit line to match ${expected}`,
      5_000,
    );
  }

  async function signIn(url: string, token: string): Promise<void> {
    page = await signInAt(url, token);
  }

  beforeAll(async () => {
    ({ keys, routineId } = await seedTriageRoutine(server, ['viewer', 'operator']));
  });

  it("after a rotate from the page, the routine's trail reads who did it and when, newest first", async () => {
    await signIn(`${server.baseUrl}/ui/routines/${routineId}/config`, keys.operator);
    await page.locator('#webhook-actions').waitFor();
    await page.click('#rotate');
    await page.click('#confirm-ok');
    await page.locator('#secret-panel').waitFor();

    await refreshUntilNewest(/^Secret rotated by API key "operator automation", /);
    const trail = await lines();
    expect(trail[0]).toMatch(HOUR_MINUTE);
    expect(trail.slice(1)).toEqual([
      expect.stringMatching(/^Webhook enabled by the bootstrap token, /),
      expect.stringMatching(/^Routine created by the bootstrap token, /),
    ]);
    // The time is a <time> with the exact instant, shown in local time.
    const when = page.locator('#audit-list > li').first().locator('time');
    expect(await when.getAttribute('datetime')).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
    expect(await page.locator('#audit-list > li.audit-denied').count()).toBe(0);
    await shot('audit-01-routine-trail-after-rotate');
  });

  it('a refused attempt stands out: denied, who tried what, and why', async () => {
    expect((await rotate(keys.viewer)).status).toBe(403);
    await refreshUntilNewest(/^Denied: API key "viewer automation" tried to rotate the secret, /);
    const newest = page.locator('#audit-list > li').first();
    expect(await newest.getAttribute('class')).toBe('audit-entry audit-denied');
    expect(await newest.textContent()).toMatch(/ — insufficient_role: needs operator, has viewer$/);
    expect(await page.locator('#audit-list > li.audit-denied').count()).toBe(1);
    await shot('audit-02-denied-attempt');
  });

  it('pages through older entries with next_cursor ("Show older entries")', async () => {
    for (let i = 0; i < 25; i += 1) expect((await rotate(keys.operator)).status).toBe(200);
    // Entries follow the store within moments: wait for the API to list all 29 (creation, enable, 26 rotations and the refusal).
    const listed = await eventually(
      async () => {
        const count = (await server.adminOk('GET', `/admin/audit?routine_id=${routineId}&limit=100`, undefined, 200)).entries
          .length as number;
        return count >= 29 ? count : undefined;
      },
      5_000,
      'all 29 entries listed',
    );
    expect(listed).toBe(29);
    await page.reload();
    await page.locator('#audit-list > li >> nth=19').waitFor();
    expect(await page.locator('#audit-list > li').count()).toBe(20);
    expect(await page.locator('#more-audit').isVisible()).toBe(true);
    await page.click('#more-audit');
    await page.locator('#audit-list > li >> nth=28').waitFor();
    const trail = await lines();
    expect(trail).toHaveLength(29);
    expect(trail.filter((line) => line.startsWith('Secret rotated by API key "operator automation"'))).toHaveLength(26);
    expect(trail[28]).toMatch(/^Routine created by the bootstrap token, /);
    expect(await page.locator('#more-audit').isVisible()).toBe(false);
  });

  it("everyone's trail on the routine list, for a viewer, filtered by actor", async () => {
    await signIn(`${server.baseUrl}/ui/`, keys.viewer);
    await page.locator('#audit-list > li').first().waitFor();
    const everyone = await lines();
    expect(everyone[0]).toMatch(/^Secret rotated \(routine "Triage alerts"\) by API key "operator automation", /);
    await page.click('#more-audit');
    await page.locator('#audit-list > li', { hasText: 'Account connected (account ops@example.com) by the bootstrap token' }).waitFor();
    await shot('audit-03-everyone');

    await page.fill('#audit-actor', 'viewer automation');
    await page.click('#audit-filter-submit');
    // The unfiltered list holds a denied line too: wait for the filtered list itself (one line).
    await page.locator('#audit-list > li').nth(1).waitFor({ state: 'detached' });
    await page.locator('#audit-list > li.audit-denied').first().waitFor();
    const viewers = await lines();
    expect(viewers).toEqual([
      expect.stringMatching(/^Denied: API key "viewer automation" tried to rotate the secret \(routine "Triage alerts"\), /),
    ]);
    expect(await page.locator('#more-audit').isVisible()).toBe(false);
    await shot('audit-04-filtered-by-actor');

    await page.click('#audit-clear');
    await page.locator('#audit-list > li >> nth=19').waitFor();
    expect(await page.locator('#more-audit').isVisible()).toBe(true);
  });
});
