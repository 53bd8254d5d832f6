/**
 * Erasing a delivery's payload from the Config page, in Debian's headless Chromium driven by
 * playwright-core, against an in-process ingress with the dispatcher's store worker and its erasure
 * runner (so an erasure asked for runs to its end). Two deliveries with unique markers: the listing
 * says each payload is "kept (until …)"; an admin erases one (the confirmation says what it does;
 * Escape sends nothing), sees it become "erased", opens its run and reads "Payload erased at …" in
 * place of the payload and the message, while the other is still kept and shown. An operator sees
 * no erase action, and why. The words for an expired payload (and its run never made), a legacy one
 * (no expiry) and a failed erasure are checked on answers stubbed in the browser, and so is the page
 * giving up following an erasure still running after a minute (its clock run forward). Screenshots
 * in test-artifacts/ui/.
 */
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { eventually } from '@wts/testing';
import { pageHelpers } from '../../../../test/support/page-test.kit';
import { useTabsTest } from '../../../../test/support/ui-tab';
import { UI_ADMIN_TOKEN } from '../../../../test/support/ui-test-server';

jest.setTimeout(60_000);

interface Sent {
  readonly deliveryId: string;
  readonly runId: string;
  readonly marker: string;
}

describe('Erasing a payload on the Config page (browser)', () => {
  /** Bodies the page POSTed to /admin/erasures. */
  const erasures: unknown[] = [];
  const { server, openTab } = useTabsTest({
    serverOptions: { erasures: true },
    onRequest: (request) => {
      if (request.method() === 'POST' && new URL(request.url()).pathname === '/admin/erasures') erasures.push(request.postDataJSON());
    },
  });
  let operatorKey = '';
  let routineId = '';
  let erased: Sent;
  let kept: Sent;
  let page: Page;

  const { shot, text, waitText } = pageHelpers(() => page);
  const row = (deliveryId: string): string => `#deliveries-body tr[data-id="${deliveryId}"]`;
  const eraseButton = (deliveryId: string): string => `${row(deliveryId)} button.erase-payload`;

  const openAs = (token: string): Promise<Page> => openTab(`${server.baseUrl}/ui/routines/${routineId}/config`, token);

  /** Delivers a payload carrying a unique marker and waits for its run. */
  async function send(webhookId: string, secret: string, name: string): Promise<Sent> {
    const marker = `${name}-${randomUUID()}`;
    return { ...(await server.deliverAndWaitForRun(webhookId, secret, { customer: { note: `about ${marker}` } })), marker };
  }

  beforeAll(async () => {
    operatorKey = await server.createApiKey('operator on call', 'operator');
    const account = await server.createAccount('erasure@example.com');
    routineId = (await server.createRoutine({ name: 'Customer notes', account_scope: [account.id] })).id;
    const enabled = await server.enableWebhook(routineId, account.email);
    const webhookId = enabled.webhook_id as string;
    const secret = enabled.secret as string;
    erased = await send(webhookId, secret, 'Erase-Me');
    kept = await send(webhookId, secret, 'Keep-Me');
  });

  it('lists each payload as kept until its expiry, with "Erase payload…" for an admin; Escape sends nothing', async () => {
    page = await openAs(UI_ADMIN_TOKEN);
    for (const { deliveryId } of [erased, kept]) {
      await page.locator(row(deliveryId)).waitFor();
      expect(await text(`${row(deliveryId)} .payload-state`)).toMatch(/^kept \(until .+\)$/);
      expect(await page.locator(eraseButton(deliveryId)).isVisible()).toBe(true);
    }
    expect(await page.locator('#erase-role-note').isVisible()).toBe(false);

    await page.click(eraseButton(kept.deliveryId));
    await page.locator('#confirm-dialog').waitFor();
    expect(await text('#confirm-title')).toBe(`Erase the payload of delivery ${kept.deliveryId}?`);
    await page.keyboard.press('Escape');
    await page.locator('#confirm-dialog').waitFor({ state: 'hidden' });
    expect(erasures).toEqual([]);
    expect(await text(`${row(kept.deliveryId)} .payload-state`)).toMatch(/^kept/);
  });

  it('erases one payload after a confirmation that says what it does: the row says erased, the other stays kept', async () => {
    await page.click(eraseButton(erased.deliveryId));
    await page.locator('#confirm-dialog').waitFor();
    const message = await text('#confirm-message');
    expect(message).toContain(`The payload of delivery ${erased.deliveryId} is removed for good, from every file the service writes`);
    expect(message).toContain('The delivery and its run stay on record');
    expect(message).toContain('If the delivery has not run yet, it never runs.');
    expect(message).toContain('the copies on its topics expire by a time shown once the erasure is done');
    expect(await text('#confirm-ok')).toBe('Erase payload');
    await shot('payload-erasure-01-confirm');
    await page.click('#confirm-ok');

    await waitText(`${row(erased.deliveryId)} .payload-state`, /^erased$/, page);
    await waitText('#erase-result', `The payload of delivery ${erased.deliveryId} is erased`);
    expect(erasures).toEqual([{ delivery_ids: [erased.deliveryId] }]);
    expect(await page.locator(eraseButton(erased.deliveryId)).count()).toBe(0);
    expect(await text(`${row(kept.deliveryId)} .payload-state`)).toMatch(/^kept \(until .+\)$/);
    expect(await page.locator(eraseButton(kept.deliveryId)).isVisible()).toBe(true);
    expect(await page.locator('#erase-error').isVisible()).toBe(false);
    await shot('payload-erasure-02-erased');

    // The API agrees: the erased run answers without its payload, the other keeps it.
    expect(await server.adminOk('GET', `/admin/runs/${erased.runId}`, undefined, 200)).toMatchObject({
      payload: null,
      initial_message: null,
      payload_format: null,
      payload_state: 'erased',
    });
    expect((await server.adminOk('GET', `/admin/runs/${kept.runId}`, undefined, 200)).payload_state).toBe('kept');
  });

  it('the erased run shows "Payload erased at …" instead of the payload and the message; the kept run its payload', async () => {
    await page.click(`${row(erased.deliveryId)} button[data-id="${erased.runId}"]`);
    await waitText('#run-id', erased.runId);
    await waitText('#run-payload-removed', /^Payload erased at .+\. The payload and the initial message are in no file/);
    expect(await page.locator('#run-texts').isVisible()).toBe(false);
    expect(await page.locator('#run-facts').isVisible()).toBe(true);
    expect(await page.content()).not.toContain(erased.marker);
    await shot('payload-erasure-03-run-erased');

    await page.click(`${row(kept.deliveryId)} button[data-id="${kept.runId}"]`);
    await waitText('#run-id', kept.runId);
    await waitText('#run-payload', kept.marker);
    expect(await page.locator('#run-payload-removed').isVisible()).toBe(false);
    expect(await text('#run-initial-message')).toContain(kept.marker);
    await page.click('#close-run');
  });

  it('an operator sees the payload states but no erase action, and which role erases', async () => {
    const operator = await openAs(operatorKey);
    await operator.locator(row(erased.deliveryId)).waitFor();
    expect(await text(`${row(erased.deliveryId)} .payload-state`, operator)).toBe('erased');
    expect(await text(`${row(kept.deliveryId)} .payload-state`, operator)).toMatch(/^kept \(until .+\)$/);
    expect(await operator.locator('#deliveries-body button.erase-payload').count()).toBe(0);
    await waitText('#erase-role-note', 'Erasing a payload needs the admin role; you are an operator.', operator);
    await shot('payload-erasure-04-operator', operator);
    await operator.context().close();
  });

  it('words an expired payload, a legacy one and a failed erasure (answers stubbed in the browser)', async () => {
    const stubbed = await openAs(UI_ADMIN_TOKEN);
    await stubbed.locator(row(kept.deliveryId)).waitFor();
    const listing = await server.adminOk('GET', `/admin/routines/${routineId}/webhook/deliveries?limit=20`, undefined, 200);
    const base = (listing.deliveries as Record<string, unknown>[]).find((entry) => entry.delivery_id === kept.deliveryId) ?? {};
    const variant = (suffix: string, extra: Record<string, unknown>): Record<string, unknown> => ({
      ...base,
      delivery_id: `dlv_stubbed${suffix}00000000000000`,
      ...extra,
    });
    const legacy = variant('legacy', { payload_expires_at: null });
    // Expired before its run was made: the run never comes.
    const expired = variant('expired', { payload_state: 'expired', run_id: 'run_stubbedexpired00000000000000' });
    await stubbed.route(/\/webhook\/deliveries\?/, (route) =>
      route.fulfill({ contentType: 'application/json', body: JSON.stringify({ deliveries: [legacy, expired], next_cursor: null }) }),
    );
    await stubbed.route('**/admin/erasures', (route) =>
      route.fulfill({
        status: 202,
        contentType: 'application/json',
        body: JSON.stringify({
          erasure_id: 'era_stubbed',
          status: 'running',
          selected: 0,
          erased: 0,
          requested_at: new Date().toISOString(),
        }),
      }),
    );
    await stubbed.route('**/admin/erasures/era_stubbed', (route) =>
      route.fulfill({
        contentType: 'application/json',
        body: JSON.stringify({
          erasure_id: 'era_stubbed',
          status: 'failed',
          selected: 1,
          erased: 0,
          finished_at: new Date().toISOString(),
        }),
      }),
    );
    await stubbed.click('#refresh-deliveries');
    await waitText(`${row(legacy.delivery_id as string)} .payload-state`, /^kept$/, stubbed);
    expect(await text(`${row(expired.delivery_id as string)} .payload-state`, stubbed)).toBe('expired');
    expect(await stubbed.locator(eraseButton(expired.delivery_id as string)).count()).toBe(0);
    await stubbed.click(`${row(expired.delivery_id as string)} button[data-id="${expired.run_id as string}"]`);
    await waitText('#run-missing', "This run was never made: the delivery's payload was expired before it ran, so it never runs.", stubbed);
    await stubbed.click('#close-run');

    await stubbed.click(eraseButton(legacy.delivery_id as string));
    await stubbed.click('#confirm-ok');
    await waitText('#erase-error', `Erasing the payload of delivery ${legacy.delivery_id as string} failed (erasure era_stubbed)`, stubbed);
    await waitText(`${row(legacy.delivery_id as string)} .erase-outcome`, 'Erasure failed', stubbed);
    expect(await text('#erase-result', stubbed)).toBe('');
    await stubbed.context().close();
  });

  it('stops following an erasure still running after a minute, and says so (the clock run forward in the browser)', async () => {
    const stubbed = await openAs(UI_ADMIN_TOKEN);
    await stubbed.locator(eraseButton(kept.deliveryId)).waitFor();
    await stubbed.clock.install();
    const running = { erasure_id: 'era_slow', status: 'running', selected: 1, erased: 0, requested_at: new Date().toISOString() };
    await stubbed.route('**/admin/erasures', (route) =>
      route.fulfill({ status: 202, contentType: 'application/json', body: JSON.stringify(running) }),
    );
    let looks = 0;
    await stubbed.route('**/admin/erasures/era_slow', (route) => {
      looks += 1;
      return route.fulfill({ contentType: 'application/json', body: JSON.stringify(running) });
    });
    await stubbed.click(eraseButton(kept.deliveryId));
    await stubbed.click('#confirm-ok');
    await waitText(`${row(kept.deliveryId)} .erase-outcome`, 'Erasing…', stubbed);
    expect(await stubbed.getAttribute(eraseButton(kept.deliveryId), 'aria-disabled')).toBe('true');
    // Each step runs the page's clock 5 s on: its next look at the erasure is due.
    await eventually(
      async () => {
        await stubbed.clock.fastForward(5_000);
        return (await text('#erase-result', stubbed)).includes('is still running after a minute');
      },
      20_000,
      'the page to stop following the erasure',
    );
    expect(await text('#erase-result', stubbed)).toBe(
      `The erasure era_slow of delivery ${kept.deliveryId}'s payload is still running after a minute: refresh the deliveries later to see it erased.`,
    );
    await waitText(`${row(kept.deliveryId)} .erase-outcome`, 'Still erasing: refresh later', stubbed);
    const followed = looks;
    expect(followed).toBeGreaterThan(1);
    await stubbed.clock.fastForward(60_000);
    await stubbed.locator('#erase-result').waitFor();
    expect(looks).toBe(followed);
    // Nothing was erased on the server: the stubs answered.
    expect((await server.adminOk('GET', `/admin/runs/${kept.runId}`, undefined, 200)).payload_state).toBe('kept');
    await stubbed.context().close();
  });
});
