/**
 * The Config page's Webhook section in a real browser (Debian's headless Chromium driven by
 * playwright-core) against an in-process ingress and dispatcher, the sibling of
 * config-page.e2e.spec.ts: a blocked routine shown as Blocked with the reason and the remedy;
 * hostile routine names, account addresses and payloads rendered as inert text (and the Trusted
 * Types watch proven to work); older deliveries paged through and a parked one shown with its
 * reason; signing out. Screenshots of each step go to test-artifacts/ui/.
 */
import { eventually } from '@wts/testing';
import { XSS_ALIAS, XSS_EMAIL, XSS_NAME, useConfigPage } from '../../../../test/support/config-page.harness';
import { refreshUntil } from '../../../../test/support/page-test.kit';
import { UI_ADMIN_TOKEN } from '../../../../test/support/ui-test-server';

jest.setTimeout(30_000);

const XSS_PAYLOAD = { html: `<img src=x onerror="alert('payload')">`, script: `<script>window.__xss='payload'</script>` };
/** The payload's JSON text, with a number no double can hold: the page must show every digit. */
const XSS_PAYLOAD_JSON = `${JSON.stringify(XSS_PAYLOAD).slice(0, -1)},"big":12345678901234567890}`;

// Browser globals used inside page.evaluate callbacks (this project compiles without the DOM
// lib): declared for this module only.
interface PageElement {
  innerHTML: string;
  getAttribute(name: string): string | null;
}
declare const document: {
  querySelectorAll(selector: string): Iterable<PageElement> & { readonly length: number };
  createElement(tag: string): PageElement;
};
declare const window: object;
declare const sessionStorage: { readonly length: number };

describe('Config page, Webhook section: safety, hostile text, paging, signing out (browser)', () => {
  const { server, page, cspViolations, seeded, shot, text, waitText, visible } = useConfigPage();

  beforeAll(async () => {
    await page.goto(`${server.baseUrl}/ui/`);
    await page.fill('#admin-token', UI_ADMIN_TOKEN);
    await page.click('#signin-submit');
    await page.locator('#routines-table').waitFor();
  });

  it('shows a blocked routine as Blocked, with the reason and how to make it safer', async () => {
    await page.goto(`${server.baseUrl}/ui/routines/${seeded.blockedId}/config`);
    await waitText('#webhook-state', 'Blocked');
    expect(await visible('#blocked-panel')).toBe(true);
    expect(await text('#blocked-reason')).toContain('send_email');
    expect(await text('#blocked-remedy')).toMatch(/supervised mode/);

    // Enabling is allowed but stays blocked; a delivery answers 403.
    await page.click('#enable');
    await page.locator('#secret-panel').waitFor();
    await waitText('#webhook-state', 'Blocked');
    expect(await text('#webhook-substate')).toBe('(webhook enabled)');
    await page.click('#send-test');
    await waitText('#test-result', /^403 .*webhook_blocked/);
    await page.click('#refresh-attempts');
    await waitText('#attempts-body tr:first-child td:nth-child(2)', 'Blocked (safety)');
    await shot('12-blocked');

    // Making the routine safer lifts the block.
    await server.adminOk('PATCH', `/admin/routines/${seeded.blockedId}`, { mode: 'supervised' }, 200);
    await page.click('#dismiss-secret');
    await page.reload();
    await waitText('#webhook-state', 'Enabled');
    expect(await visible('#blocked-panel')).toBe(false);
  });

  it('renders hostile routine names, account addresses and payloads as inert text', async () => {
    const enabled = await server.adminOk(
      'POST',
      `/admin/routines/${seeded.xssId}/webhook/enable`,
      { default_account: XSS_EMAIL, account_override_allowed: true },
      200,
    );
    const body = `{"account_email":${JSON.stringify(XSS_ALIAS)},"data":${XSS_PAYLOAD_JSON}}`;
    const accepted = await server.deliver(enabled.webhook_id, enabled.secret, body);
    expect(accepted.status).toBe(202);
    await server.deliver(enabled.webhook_id, `whsec_${'B'.repeat(43)}`);

    await page.goto(`${server.baseUrl}/ui/`);
    await page.locator('#routines-table').waitFor();
    expect(await page.locator('#routines-body a', { hasText: '<img src=x' }).count()).toBe(1);

    await page.goto(`${server.baseUrl}/ui/routines/${seeded.xssId}/config`);
    await waitText('#webhook-state', 'Enabled');
    expect(await text('#routine-name')).toBe(XSS_NAME);
    expect(await page.title()).toContain('<script>');
    expect(await text('#routine-scope')).toBe(`${XSS_EMAIL}, outsider@example.com`);
    expect(await text('#webhook-default')).toBe(XSS_EMAIL);
    await page.locator('#deliveries-body tr').first().waitFor();
    expect(await text('#deliveries-body tr:first-child td:nth-child(3)')).toBe(XSS_ALIAS);

    await page.click('#deliveries-body tr:first-child button');
    await waitText('#run-account', XSS_ALIAS);
    const payload = await text('#run-payload');
    expect(payload).toContain(`<img src=x onerror=\\"alert('payload')\\">`);
    expect(payload).toContain(`<script>window.__xss='payload'</script>`);
    expect(payload).toContain('12345678901234567890');
    expect(await text('#run-initial-message')).toContain('onerror');
    expect(await text('#run-routine')).toContain('<script>');
    expect(await page.getByText(`<script>window.__xss='payload'</script>`, { exact: false }).first().isVisible()).toBe(true);

    // Nothing was injected: no image element, no script beyond our module, nothing ran.
    const dom = await page.evaluate(() => ({
      images: document.querySelectorAll('img').length,
      scripts: [...document.querySelectorAll('script')].map((script) => script.getAttribute('src')),
      xss: (window as unknown as { __xss?: string }).__xss ?? null,
    }));
    expect(dom).toEqual({ images: 0, scripts: ['/ui/assets/config-page.js'], xss: null });

    // Belt and braces: the page's Trusted Types policy makes every HTML sink throw.
    const sinkRefused = await page.evaluate(() => {
      try {
        document.createElement('div').innerHTML = '<img src=x>';
        return false;
      } catch {
        return true;
      }
    });
    expect(sinkRefused).toBe(true);
    // The violation is reported (asynchronously): the watch every step relies on works.
    await eventually(() => cspViolations.length > 0, 2_000, 'the Trusted Types violation reported', 20);
    expect(cspViolations.join('\n')).toMatch(/require-trusted-types-for/);
    cspViolations.length = 0;
    await shot('13-hostile-text-inert');
  });

  it('pages through older deliveries, and shows a parked delivery with its reason', async () => {
    const pagedRoutine = await server.createRoutine({ name: 'Paged deliveries', account_scope: [seeded.scoped.id] });
    const enabled = await server.enableWebhook(pagedRoutine.id, 'ops@example.com');
    const accepted: string[] = [];
    for (let i = 0; i < 25; i += 1)
      accepted.push((await server.deliver(enabled.webhook_id, enabled.secret, { data: { i } })).json.delivery_id as string);
    const parkedId = await server.appendDeliveryOutsideScope({ webhookId: enabled.webhook_id, routineId: pagedRoutine.id });

    /** Listings follow the store within moments: refreshes the listing until the parked delivery's row is in it. */
    const refreshUntilListed = (listing: 'deliveries' | 'parked', what: string): Promise<void> =>
      refreshUntil(
        page,
        `#refresh-${listing}`,
        async () => (await page.locator(`#${listing}-body tr[data-id="${parkedId}"]`).count()) > 0,
        what,
        5_000,
      );

    await page.goto(`${server.baseUrl}/ui/routines/${pagedRoutine.id}/config`);
    await waitText('#webhook-state', 'Enabled');
    await refreshUntilListed('deliveries', 'the newest delivery listed');
    expect(await page.locator('#deliveries-body tr').count()).toBe(20);
    expect(await visible('#more-deliveries')).toBe(true);
    await page.click('#more-deliveries');
    await page.locator(`#deliveries-body tr[data-id="${accepted[0]}"]`).waitFor();
    const listed = await page
      .locator('#deliveries-body tr')
      .evaluateAll((rows) => rows.map((row) => (row as unknown as PageElement).getAttribute('data-id')));
    expect(listed).toEqual([parkedId, ...[...accepted].reverse()]);
    expect(await visible('#more-deliveries')).toBe(false);

    await refreshUntilListed('parked', 'the parked delivery listed');
    const cells = await page.locator(`#parked-body tr[data-id="${parkedId}"] td`).allTextContents();
    expect(cells[1]).toBe(parkedId);
    expect(cells[2]).toContain('account_out_of_scope');
    await shot('14-older-deliveries-and-parked');
  });

  it('signs out: the token leaves the tab', async () => {
    await page.click('#signout');
    await page.locator('#signin').waitFor();
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    expect(await visible('#main')).toBe(false);
  });
});
