/**
 * Hold and release on the Config page, in Debian's headless Chromium driven by playwright-core,
 * against an in-process ingress and dispatcher (its store worker and its release drain): an
 * operator holds the runs from the page (by keyboard, after a confirmation that says what a hold
 * does), deliveries sent to the real endpoint are accepted (202) and counted on the page while no
 * run is created, a viewer sees the held state without the buttons and with the reason, the release
 * (confirmed with the count) runs them in the order they arrived and the count goes to 0; a hold's
 * time to release by itself is sent with the browser's offset and honoured; refusals show the
 * server's detail in place. Screenshots in test-artifacts/ui/.
 */
import { eventually } from '@wts/testing';
import type { Page } from 'playwright-core';
import { confirmThenEscape, focusedId, pageHelpers } from '../../../../test/support/page-test.kit';
import { localDateTimeIn, useTabsTest } from '../../../../test/support/ui-tab';

jest.setTimeout(60_000);

/** The operator's browser runs in New York: release_at must carry that offset, not UTC's. */
const OPERATOR_TIMEZONE = 'America/New_York';

describe('Hold and release on the Config page (browser)', () => {
  /** Bodies the operator's page POSTed to …/webhook/hold. */
  const holdBodies: unknown[] = [];
  /** Every tab is watched for problems and 403s from the admin API (a page should ask only for what its role allows), and the bodies it POSTs to …/webhook/hold. */
  const { server, openTab } = useTabsTest({
    onRequest: (request) => {
      if (request.method() === 'POST' && new URL(request.url()).pathname.endsWith('/webhook/hold')) holdBodies.push(request.postDataJSON());
    },
  });
  /** The operator's page, kept open across the tests (its periodic check is part of what is tested). */
  let page: Page;
  const keys = { viewer: '', operator: '' };
  let routineId = '';
  let webhookId = '';
  let secret = '';
  /** The deliveries sent while held, in the order they were accepted. */
  const held: { deliveryId: string; runId: string }[] = [];

  const { shot, text, waitText, visible } = pageHelpers(() => page);
  const activeId = (): Promise<string> => focusedId(page);
  const configUrl = (): string => `${server.baseUrl}/ui/routines/${routineId}/config`;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const webhookView = (): Promise<any> => server.webhookView(routineId);
  const runsListed = async (): Promise<string[]> =>
    ((await server.adminOk('GET', `/admin/routines/${routineId}/runs?limit=100`, undefined, 200)).runs as { run_id: string }[]).map(
      (run) => run.run_id,
    );

  /** A fresh tab signed in with `token` on the routine's Config page. */
  const openAs = (token: string, options: { timezoneId?: string } = {}): Promise<Page> => openTab(configUrl(), token, options);

  beforeAll(async () => {
    for (const role of ['viewer', 'operator'] as const) keys[role] = await server.createApiKey(`${role} on call`, role);
    const account = await server.createAccount('ops@example.com');
    routineId = (await server.createRoutine({ name: 'Nightly import', account_scope: [account.id] })).id;
    const enabled = await server.enableWebhook(routineId, 'ops@example.com');
    webhookId = enabled.webhook_id;
    secret = enabled.secret;
  });

  it('an operator holds the runs by keyboard, after a confirmation that says what a hold does (Escape changes nothing)', async () => {
    page = await openAs(keys.operator, { timezoneId: OPERATOR_TIMEZONE });
    await waitText('#webhook-state', 'Enabled');
    expect(await visible('#webhook-held-badge')).toBe(false);
    expect(await visible('#held-callout')).toBe(false);
    expect(await visible('#hold-form')).toBe(true);
    expect(await visible('#hold-role-note')).toBe(false);
    expect(await text('#hold-form-hint')).toContain('senders keep getting 202');

    // The time is optional: leave it empty, go to the button and press Enter.
    expect(await page.inputValue('#hold-release-at')).toBe('');
    await confirmThenEscape(page, 'hold', {
      title: 'Hold the runs?',
      says: [
        'Senders keep getting 202 and every delivery is kept: nothing is lost.',
        'No run is created until someone releases it.',
        'in the order the deliveries arrived',
        'disable the webhook: senders then get 404',
      ],
      shot: 'hold-01-confirm-hold',
    });
    expect((await webhookView()).held).toBe(false);
    expect(holdBodies).toEqual([]);

    await page.keyboard.press('Enter');
    await page.locator('#confirm-dialog').waitFor();
    await page.keyboard.press('Tab');
    expect(await activeId()).toBe('confirm-ok');
    await page.keyboard.press('Enter');
    await page.locator('#held-callout').waitFor();
    expect(await activeId()).toBe('held-title');
    expect(holdBodies).toEqual([{}]);
    expect(await visible('#webhook-held-badge')).toBe(true);
    expect(await text('#webhook-state')).toBe('Enabled');
    expect(await text('#held-by')).toBe('operator on call');
    expect(await text('#held-release-at')).toBe('No: only when someone releases it');
    expect(await text('#held-count')).toBe('0 deliveries waiting');
    expect(await page.locator('#held-since time').getAttribute('datetime')).toBe((await webhookView()).held_since);
    expect(await visible('#hold-form')).toBe(false);
    expect(await visible('#release')).toBe(true);
    // Rotate and disable stay offered: a hold changes neither.
    expect(await visible('#webhook-actions')).toBe(true);
    await waitText('#status', 'Runs held');
    const view = await webhookView();
    expect(view).toMatchObject({ state: 'enabled', held: true, held_by: 'operator on call', release_at: null, held_deliveries: 0 });
  });

  it('deliveries sent while held are accepted (202) and counted on the page (checked periodically); no run is created', async () => {
    for (let i = 0; i < 3; i += 1) {
      const accepted = await server.deliver(webhookId, secret, { data: { batch: i } });
      expect(accepted.status).toBe(202);
      held.push({ deliveryId: accepted.json.delivery_id as string, runId: accepted.json.run_id as string });
    }
    // No reload, no click: the page checks the hold again by itself.
    await waitText('#held-count', '3 deliveries waiting', page, 15_000);
    // The deliveries listing follows (it is refreshed when the count changes): all three, no run yet.
    for (const { deliveryId } of held) await page.locator(`#deliveries-body tr[data-id="${deliveryId}"]`).waitFor();
    expect(await runsListed()).toEqual([]);
    const first = held[0] as { deliveryId: string; runId: string };
    await page.click(`#deliveries-body tr[data-id="${first.deliveryId}"] button`);
    await waitText('#run-title', `Run ${first.runId}`);
    expect(await visible('#run-missing')).toBe(true);
    expect(await text('#run-missing')).toContain("the webhook's runs are held");
    expect(await visible('#run-facts')).toBe(false);
    await shot('hold-02-held-with-waiting-deliveries');
    await page.click('#close-run');
    // Still none after a while (watched all along): the dispatcher leaves held deliveries alone.
    await expect(eventually(async () => (await runsListed()).length > 0, 500, 'a run while held', 50)).rejects.toThrow(/^timed out/);
    expect(await runsListed()).toEqual([]);
    expect((await webhookView()).held_deliveries).toBe(3);
  });

  it('a viewer sees the held state and the count, but no Hold or Release button, with the reason in place', async () => {
    const viewer = await openAs(keys.viewer);
    await waitText('#webhook-state', 'Enabled', viewer);
    expect(await visible('#webhook-held-badge', viewer)).toBe(true);
    expect(await visible('#held-callout', viewer)).toBe(true);
    expect(await text('#held-count', viewer)).toBe('3 deliveries waiting');
    expect(await text('#held-by', viewer)).toBe('operator on call');
    expect(await visible('#release', viewer)).toBe(false);
    expect(await visible('#release-actions', viewer)).toBe(false);
    expect(await visible('#hold-form', viewer)).toBe(false);
    expect(await visible('#hold', viewer)).toBe(false);
    expect(await text('#hold-role-note', viewer)).toBe('Releasing the held runs needs the operator role; you are a viewer.');
    await shot('hold-03-viewer-sees-held', viewer);
    await viewer.context().close();
  });

  it('releases after a confirmation with the count: the runs are created in the order the deliveries arrived, and the count goes to 0', async () => {
    await page.click('#release');
    await page.locator('#confirm-dialog').waitFor();
    expect(await text('#confirm-title')).toBe('Release the held runs?');
    expect(await text('#confirm-message')).toBe(
      '3 deliveries will run in the order they arrived, with the routine as it is now (its instructions, tools and account scope). ' +
        'One whose account is no longer active or in scope is parked instead. Deliveries that arrive from now on run at once again.',
    );
    await shot('hold-04-confirm-release');
    await page.click('#confirm-ok');
    await page.locator('#webhook-held-badge').waitFor({ state: 'hidden' });
    expect(await visible('#held-callout')).toBe(false);
    // Said at once; replaced by the end of the release when the page's next check sees it done.
    await waitText('#status', /^(Released: |Every held delivery has its run now\.$)/);
    // The release's own answer moves the focus (a check answered first hides the badge already).
    expect(await activeId()).toBe('webhook-title');
    // While the drain runs, the page says so; either way it ends at 0 and says nothing more.
    const progress = await page.locator('#release-progress').evaluate((element) => {
      const shown = element as unknown as { hidden: boolean; textContent: string | null };
      return shown.hidden ? null : shown.textContent;
    });
    if (progress !== null) {
      expect(progress).toMatch(/^Released: running (1 held delivery|[23] held deliveries, in the order they arrived)…$/);
    }
    await page.locator('#release-progress').waitFor({ state: 'hidden', timeout: 15_000 });
    expect(await visible('#hold-form')).toBe(true);

    // Every held delivery has its run, made in acceptance order (the runs listing is newest first).
    await eventually(async () => (await runsListed()).length >= held.length, 5_000, 'a run for every held delivery', 50);
    expect((await runsListed()).reverse()).toEqual(held.map(({ runId }) => runId));
    const view = await webhookView();
    expect(view).toMatchObject({ held: false, held_since: null, held_by: null, release_at: null, held_deliveries: 0, last_release: 'run' });

    const first = held[0] as { deliveryId: string; runId: string };
    await page.click(`#deliveries-body tr[data-id="${first.deliveryId}"] button`);
    await waitText('#run-id', first.runId);
    expect(await text('#run-payload')).toBe('{"batch":0}');
    await page.click('#close-run');
    // A delivery now runs at once again.
    const after = await server.deliver(webhookId, secret, { data: { batch: 'after' } });
    expect(after.status).toBe(202);
    await eventually(async () => (await runsListed()).includes(after.json.run_id as string), 5_000, 'the run of the delivery after', 50);
    expect(await runsListed()).toContain(after.json.run_id);
    await shot('hold-05-released');
  });

  it("a time to release by itself is sent with the browser's offset; one in the past is refused in place with the server's detail", async () => {
    await page.fill('#hold-release-at', '2020-01-15T09:30');
    await page.click('#hold');
    expect(await text('#confirm-message')).toContain('when it releases by itself');
    await page.click('#confirm-ok');
    await waitText('#hold-error', 'Could not hold the runs: 400');
    expect(await text('#hold-error')).toContain('release_at must be later than now');
    expect(await page.getAttribute('#hold-release-at', 'aria-invalid')).toBe('true');
    expect(await activeId()).toBe('hold-release-at');
    expect(holdBodies.at(-1)).toEqual({ release_at: '2020-01-15T09:30:00-05:00' });
    expect((await webhookView()).held).toBe(false);

    // Next January, 09:30 in New York is 14:30 UTC.
    const year = new Date().getUTCFullYear() + 1;
    await page.fill('#hold-release-at', `${year}-01-15T09:30`);
    await page.click('#hold');
    await page.click('#confirm-ok');
    await page.locator('#held-callout').waitFor();
    expect(holdBodies.at(-1)).toEqual({ release_at: `${year}-01-15T09:30:00-05:00` });
    expect(await page.getAttribute('#hold-release-at', 'aria-invalid')).toBeNull();
    expect(await visible('#hold-error')).toBe(false);
    expect((await webhookView()).release_at).toBe(`${year}-01-15T14:30:00.000Z`);
    expect(await page.locator('#held-release-at time').getAttribute('datetime')).toBe(`${year}-01-15T14:30:00.000Z`);
    await shot('hold-06-held-until');

    await page.click('#release');
    await page.click('#confirm-ok');
    await page.locator('#webhook-held-badge').waitFor({ state: 'hidden' });
  });

  it('a hold given a time a few seconds away releases by itself: the page sees it, and what it held runs', async () => {
    await page.fill('#hold-release-at', await localDateTimeIn(page, 10_000));
    await page.click('#hold');
    await page.click('#confirm-ok');
    await page.locator('#held-callout').waitFor();
    const accepted = await server.deliver(webhookId, secret, { data: { batch: 'expiring' } });
    expect(accepted.status).toBe(202);
    // Counted on the server: the page checks every 3 s, and under load the hold may end before a
    // check sees the count (the count on the page is the first test's).
    await eventually(async () => ((await webhookView()).held_deliveries === 1 ? true : undefined), 10_000, 'the held delivery counted');
    expect(await runsListed()).not.toContain(accepted.json.run_id);

    await page.locator('#webhook-held-badge').waitFor({ state: 'hidden', timeout: 20_000 });
    // Said when the page sees the hold end; replaced once a later check finds the run made.
    await waitText('#status', /released|Every held delivery has its run now\./i);
    await eventually(async () => (await runsListed()).includes(accepted.json.run_id as string), 5_000, 'the run of what the hold kept', 50);
    expect(await runsListed()).toContain(accepted.json.run_id);
    await page.locator('#release-progress').waitFor({ state: 'hidden', timeout: 15_000 });
    expect((await webhookView()).held_deliveries).toBe(0);
  });

  it("a refusal shows the server's detail in place: holding a webhook disabled meanwhile (409)", async () => {
    expect(await visible('#hold-form')).toBe(true);
    await server.adminOk('POST', `/admin/routines/${routineId}/webhook/disable`, undefined, 200);
    await page.click('#hold');
    await page.click('#confirm-ok');
    await waitText('#hold-error', 'Could not hold the runs: 409');
    expect(await text('#hold-error')).toContain('only an enabled webhook can be held');
    // The page shows the webhook as it is now, the refusal kept beside it.
    await waitText('#webhook-state', 'Disabled');
    expect(await visible('#hold-form')).toBe(false);
    expect(await visible('#hold-error')).toBe(true);
    expect(await page.getAttribute('#hold-release-at', 'aria-invalid')).toBeNull();
    expect(await activeId()).toBe('webhook-title');
    expect((await webhookView()).held).toBe(false);
    await shot('hold-07-refused-in-place');
  });
});
