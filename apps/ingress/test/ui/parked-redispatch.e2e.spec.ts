/**
 * Re-dispatching parked deliveries from the Config page, in Debian's headless Chromium driven by
 * playwright-core, against an in-process ingress and dispatcher. Two real parks: one the
 * dispatcher made after failing on the delivery again and again (a simulated bug, then fixed), one
 * for a trigger account outside the routine's scope (judged as things stand at the re-dispatch: still outside, it parks again).
 * An operator ticks them (by keyboard), confirms, and reads each outcome in its row — a run created
 * (opening its record), parked again with the reason — then "already has its run" on a second try;
 * a delivery accepted while its webhook was held comes back "held" and runs on the release. A
 * viewer sees the parks without the controls, and why. The words for the outcomes no listed row can
 * produce here (not found, not re-dispatchable) and a refusal are checked on answers stubbed in the
 * browser. Screenshots in test-artifacts/ui/.
 */
import { eventually } from '@wts/testing';
import type { Page } from 'playwright-core';
import { confirmThenEscape, focusedId, pageHelpers } from '../../../../test/support/page-test.kit';
import { useTabsTest } from '../../../../test/support/ui-tab';
import { UI_ADMIN_TOKEN } from '../../../../test/support/ui-test-server';

jest.setTimeout(60_000);

declare const document: { activeElement: { id: string } | null };

interface ParkedRow {
  readonly source_event_id: string;
  readonly delivery_id: string | null;
  readonly error: string;
}

describe('Re-dispatching parked deliveries on the Config page (browser)', () => {
  /** Bodies the page POSTed to /admin/parked/redispatch. */
  const sent: { source_event_ids: string[] }[] = [];
  const { server, openTab } = useTabsTest({
    onRequest: (request) => {
      if (request.method() === 'POST' && new URL(request.url()).pathname === '/admin/parked/redispatch') sent.push(request.postDataJSON());
    },
  });
  let page: Page;
  let viewerKey = '';
  let routineId = '';
  let webhookId = '';
  let secret = '';
  /** Parked after the dispatcher failed on it again and again; the cause is fixed before re-dispatching. */
  let fixable: { deliveryId: string; runId: string };
  /** Parked for a trigger account outside the routine's scope (as a lagging replica could accept it). */
  let outOfScope = '';

  const { shot, text, waitText, visible } = pageHelpers(() => page);
  const activeId = (): Promise<string> => focusedId(page);
  const row = (deliveryId: string): string => `#parked-body tr[data-id="${deliveryId}"]`;
  const runsOf = async (routine: string): Promise<string[]> =>
    ((await server.adminOk('GET', `/admin/routines/${routine}/runs?limit=100`, undefined, 200)).runs as { run_id: string }[]).map(
      (run) => run.run_id,
    );
  const parkedOf = async (routine: string): Promise<ParkedRow[]> =>
    (await server.adminOk('GET', `/admin/routines/${routine}/webhook/parked?limit=100`, undefined, 200)).parked as ParkedRow[];

  /** Waits until the routine's parked listing names `deliveryId` (the dispatcher and the projector follow the store). */
  async function parkedListed(routine: string, deliveryId: string): Promise<ParkedRow> {
    return eventually(
      async () => (await parkedOf(routine)).find((entry) => entry.delivery_id === deliveryId),
      10_000,
      `${deliveryId} listed as parked`,
      50,
    );
  }

  const openAs = (token: string, routine: string): Promise<Page> => openTab(`${server.baseUrl}/ui/routines/${routine}/config`, token);

  /** A routine with an enabled bearer webhook. */
  async function routineWithWebhook(name: string, accountId: string): Promise<{ id: string; webhookId: string; secret: string }> {
    const id = (await server.createRoutine({ name, account_scope: [accountId] })).id;
    const enabled = await server.enableWebhook(id, 'ops@example.com');
    return { id, webhookId: enabled.webhook_id as string, secret: enabled.secret as string };
  }

  beforeAll(async () => {
    viewerKey = await server.createApiKey('viewer on call', 'viewer');
    const account = await server.createAccount('ops@example.com');
    ({ id: routineId, webhookId, secret } = await routineWithWebhook('Invoice sync', account.id));

    // The dispatcher fails on this webhook's deliveries (a bug): the delivery is parked.
    server.dispatchFailsFor(webhookId, true);
    const accepted = await server.deliver(webhookId, secret, { data: { invoice: 42 } });
    expect(accepted.status).toBe(202);
    fixable = { deliveryId: accepted.json.delivery_id as string, runId: accepted.json.run_id as string };
    expect((await parkedListed(routineId, fixable.deliveryId)).error).toContain('simulated dispatcher fault');
    // The cause is fixed (the dispatcher no longer fails); the park stays until someone re-dispatches it.
    server.dispatchFailsFor(webhookId, false);

    outOfScope = await server.appendDeliveryOutsideScope({ webhookId, routineId });
    expect((await parkedListed(routineId, outOfScope)).error).toContain('account_out_of_scope');
    expect(await runsOf(routineId)).toEqual([]);
  });

  it('an operator selects parked deliveries by keyboard; the confirmation says what happens, and Escape sends nothing', async () => {
    page = await openAs(UI_ADMIN_TOKEN, routineId);
    await page.locator(row(outOfScope)).waitFor();
    await page.locator(row(fixable.deliveryId)).waitFor();
    expect(await visible('#redispatch-controls')).toBe(true);
    expect(await visible('#redispatch-role-note')).toBe(false);
    expect(await page.isDisabled('#redispatch')).toBe(true);
    // The listing's columns as before, the outcome last (empty until re-dispatched).
    const cells = await page.locator(`${row(fixable.deliveryId)} td`).allTextContents();
    expect(cells[1]).toBe(fixable.deliveryId);
    expect(cells[2]).toContain('simulated dispatcher fault');
    expect(cells[3]).toBe('');

    // Select all, then none, with the header box; then each row by keyboard (Space).
    await page.check('#parked-select-all');
    expect(await page.isChecked(`${row(outOfScope)} input[type=checkbox]`)).toBe(true);
    expect(await text('#redispatch')).toBe('Re-dispatch selected (2)…');
    await page.uncheck('#parked-select-all');
    expect(await page.isDisabled('#redispatch')).toBe(true);
    await page.focus(`${row(fixable.deliveryId)} input[type=checkbox]`);
    await page.keyboard.press('Space');
    expect(await text('#redispatch')).toBe('Re-dispatch selected (1)…');
    expect(
      await page.evaluate(
        () =>
          (document as unknown as { getElementById(id: string): { indeterminate: boolean } }).getElementById('parked-select-all')
            .indeterminate,
      ),
    ).toBe(true);
    await page.focus(`${row(outOfScope)} input[type=checkbox]`);
    await page.keyboard.press('Space');
    expect(await page.isChecked('#parked-select-all')).toBe(true);
    expect(await page.locator(`${row(outOfScope)} input[type=checkbox]`).getAttribute('aria-label')).toBe(
      `Select the parked delivery ${outOfScope}`,
    );

    await confirmThenEscape(page, 'redispatch', {
      title: 'Re-dispatch 2 parked deliveries?',
      says: ['oldest first', 'never a second run for a delivery', 'parked again with its reason'],
      shot: 'parked-01-confirm-redispatch',
    });
    expect(sent).toEqual([]);
    expect(await runsOf(routineId)).toEqual([]);
  });

  it('re-dispatches: the fixed one gets its run (opening its record), the out-of-scope one is parked again with the reason', async () => {
    await page.click('#redispatch');
    await page.click('#confirm-ok');
    await waitText('#redispatch-summary', 'Re-dispatched 2 deliveries');
    // Oldest first: the fixable delivery was accepted first.
    const [fixablePark, outOfScopePark] = [
      (await parkedOf(routineId)).find((entry) => entry.delivery_id === fixable.deliveryId) as ParkedRow,
      (await parkedOf(routineId)).find((entry) => entry.delivery_id === outOfScope) as ParkedRow,
    ];
    expect(sent).toEqual([{ source_event_ids: [fixablePark.source_event_id, outOfScopePark.source_event_id] }]);
    expect(await text('#redispatch-summary')).toBe('Re-dispatched 2 deliveries: 1 run created, 1 parked again.');
    await waitText('#status', 'Re-dispatched 2 deliveries');
    expect(await activeId()).toBe('parked-title');

    const created = page.locator(`${row(fixable.deliveryId)} td.outcome`);
    expect(await created.getAttribute('data-outcome')).toBe('created');
    expect(await created.textContent()).toBe(`Run created: ${fixable.runId}`);
    const parkedAgain = page.locator(`${row(outOfScope)} td.outcome`);
    expect(await parkedAgain.getAttribute('data-outcome')).toBe('parked');
    expect(await parkedAgain.textContent()).toMatch(/^Parked again: account_out_of_scope: the trigger account is outside/);
    // Nothing stays selected.
    expect(await page.isChecked('#parked-select-all')).toBe(false);
    expect(await page.isDisabled('#redispatch')).toBe(true);
    expect(await runsOf(routineId)).toEqual([fixable.runId]);
    await shot('parked-02-outcomes-in-place');

    await created.locator('button').click();
    await waitText('#run-id', fixable.runId);
    expect(await text('#run-payload')).toBe('{"invoice":42}');
    expect(await text('#run-status')).toBe('created');
    await page.click('#close-run');
    expect(
      await page.evaluate(() =>
        (document.activeElement as unknown as { getAttribute(name: string): string | null }).getAttribute('data-id'),
      ),
    ).toBe(fixable.runId);
  });

  it('a second try says the run already exists; outcomes stay shown when the listing is refreshed', async () => {
    await page.click('#refresh-parked');
    await page.locator(`${row(fixable.deliveryId)} td.outcome[data-outcome="created"]`).waitFor();
    expect(await text(`${row(outOfScope)} td.outcome`)).toMatch(/^Parked again:/);
    await page.check(`${row(fixable.deliveryId)} input[type=checkbox]`);
    await page.click('#redispatch');
    expect(await text('#confirm-title')).toBe('Re-dispatch the parked delivery?');
    await page.click('#confirm-ok');
    await waitText('#redispatch-summary', 'Re-dispatched 1 delivery: 1 already had its run.');
    expect(await text(`${row(fixable.deliveryId)} td.outcome`)).toBe(`Already has its run: ${fixable.runId}`);
    expect(await runsOf(routineId)).toEqual([fixable.runId]);
  });

  it('a delivery accepted while its webhook was held comes back held, and runs on the release', async () => {
    const account = (await server.adminOk('GET', '/admin/accounts', undefined, 200)).accounts[0] as { id: string };
    const other = await routineWithWebhook('Held sync', account.id);
    await server.adminOk('POST', `/admin/routines/${other.id}/webhook/hold`, {}, 200);
    server.dispatchFailsFor(other.webhookId, true);
    const accepted = await server.deliver(other.webhookId, other.secret, { data: { held: true } });
    expect(accepted.status).toBe(202);
    await parkedListed(other.id, accepted.json.delivery_id as string);
    server.dispatchFailsFor(other.webhookId, false);

    await page.goto(`${server.baseUrl}/ui/routines/${other.id}/config`);
    await page.locator('#webhook-held-badge').waitFor();
    await page.check(`${row(accepted.json.delivery_id as string)} input[type=checkbox]`);
    await page.click('#redispatch');
    await page.click('#confirm-ok');
    await waitText('#redispatch-summary', 'Re-dispatched 1 delivery: 1 held until its webhook is released.');
    const outcome = page.locator(`${row(accepted.json.delivery_id as string)} td.outcome`);
    expect(await outcome.getAttribute('data-outcome')).toBe('held');
    expect(await outcome.textContent()).toMatch(/^Held: .*release/);
    expect(await runsOf(other.id)).toEqual([]);

    await page.click('#release');
    await page.click('#confirm-ok');
    await eventually(async () => (await runsOf(other.id)).length > 0, 5_000, 'the released run', 50);
    expect(await runsOf(other.id)).toEqual([accepted.json.run_id]);
  });

  it('a viewer sees the parked deliveries and the reasons, but no checkbox or button, and why', async () => {
    const viewer = await openAs(viewerKey, routineId);
    await viewer.locator(row(outOfScope)).waitFor();
    expect(await viewer.locator('#parked-body input[type=checkbox]').count()).toBe(0);
    expect(await visible('#redispatch-controls', viewer)).toBe(false);
    expect(await visible('#redispatch', viewer)).toBe(false);
    expect(await text('#redispatch-role-note', viewer)).toBe('Re-dispatching parked deliveries needs the operator role; you are a viewer.');
    const cells = await viewer.locator(`${row(outOfScope)} td`).allTextContents();
    expect(cells[1]).toBe(outOfScope);
    expect(cells[2]).toContain('account_out_of_scope');
    await shot('parked-03-viewer', viewer);
    await viewer.context().close();
  });

  it('words for every outcome, and a refusal in place with its detail (answers stubbed in the browser)', async () => {
    await page.goto(`${server.baseUrl}/ui/routines/${routineId}/config`);
    await page.locator(row(outOfScope)).waitFor();
    const parks = await parkedOf(routineId);
    const ids = parks.map((entry) => entry.source_event_id);
    const stubbed = [
      { outcome: 'not_found', run_id: null, detail: 'no parked delivery with this id' },
      { outcome: 'not_redispatchable', run_id: null, detail: 'no accepted delivery is stored behind this park' },
    ];
    await page.route('**/admin/parked/redispatch', (route) =>
      route.fulfill({
        status: 200,
        contentType: 'application/json',
        body: JSON.stringify({
          results: ids
            .slice()
            .reverse()
            .map((id, i) => ({ source_event_id: id, ...stubbed[i % 2] })),
        }),
      }),
    );
    await page.check('#parked-select-all');
    await page.click('#redispatch');
    await page.click('#confirm-ok');
    await waitText('#redispatch-summary', 'Re-dispatched 2 deliveries: 1 not found, 1 cannot be re-dispatched.');
    const words = await page.locator('#parked-body td.outcome').allTextContents();
    expect(words.sort()).toEqual(
      ['Cannot be re-dispatched: no accepted delivery is stored behind this park', 'Not found: no parked delivery with this id'].sort(),
    );

    await page.unroute('**/admin/parked/redispatch');
    await page.route('**/admin/parked/redispatch', (route) =>
      route.fulfill({
        status: 400,
        contentType: 'application/problem+json',
        body: JSON.stringify({
          type: 'about:blank',
          title: 'Bad Request',
          status: 400,
          code: 'validation_failed',
          detail: 'source_event_ids names at most 100 parked deliveries at a time',
        }),
      }),
    );
    await page.check('#parked-select-all');
    await page.click('#redispatch');
    await page.click('#confirm-ok');
    await waitText(
      '#redispatch-error',
      'Could not re-dispatch: 400 Bad Request: source_event_ids names at most 100 parked deliveries at a time',
    );
    expect(await activeId()).toBe('redispatch');
    expect(await page.isChecked('#parked-select-all')).toBe(true);
    await shot('parked-04-refused-in-place');
    await page.unroute('**/admin/parked/redispatch');
  });
});
