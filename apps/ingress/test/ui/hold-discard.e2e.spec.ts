/**
 * Discarding what a hold kept, on the Config page in Debian's headless Chromium (playwright-core),
 * against an in-process ingress and dispatcher with its release drain: "Discard held deliveries…"
 * asks twice — the second time naming the count ("Discard 2 held deliveries") — then every held
 * delivery is parked "discarded_by_operator" and listed under Parked deliveries, no run is made, and
 * the audit trail says who discarded how many. Cancelling either confirmation changes nothing.
 */
import { eventually } from '@wts/testing';
import { shotOf, textOf, waitText } from '../../../../test/support/page-test.kit';
import { useTabsTest } from '../../../../test/support/ui-tab';

jest.setTimeout(60_000);

describe('Discarding held deliveries on the Config page (browser)', () => {
  const { server, problems, refused, openTab } = useTabsTest();

  it('asks twice, the second time with the count, then parks every held delivery and makes no run', async () => {
    const operatorKey = await server.createApiKey('operator on call', 'operator');
    const { routineId, webhookId, secret } = await server.createEnabledRoutine('discard@example.com', 'Noisy import');
    await server.adminOk('POST', `/admin/routines/${routineId}/webhook/hold`, {}, 200);
    const kept: string[] = [];
    for (let i = 0; i < 2; i += 1) kept.push((await server.deliver(webhookId, secret, { data: { i } })).json.delivery_id as string);
    const path = `/admin/routines/${routineId}/webhook`;
    await eventually(
      async () => ((await server.adminOk('GET', path, undefined, 200)).held_deliveries === 2 ? true : undefined),
      10_000,
      'counted',
    );

    const page = await openTab(`${server.baseUrl}/ui/routines/${routineId}/config`, operatorKey);
    const text = (selector: string): Promise<string> => textOf(page, selector);
    await waitText(page, '#held-count', '2 deliveries waiting');

    // The first confirmation, cancelled: nothing changes.
    await page.click('#discard');
    await page.locator('#confirm-dialog').waitFor();
    expect(await text('#confirm-title')).toBe('Discard the held deliveries?');
    expect(await text('#confirm-message')).toContain('No run will be created for 2 held deliveries');
    await page.keyboard.press('Escape');
    await page.locator('#confirm-dialog').waitFor({ state: 'hidden' });
    expect((await server.adminOk('GET', path, undefined, 200)).held).toBe(true);

    // Both confirmations: the second names the count.
    await page.click('#discard');
    await page.click('#confirm-ok');
    await waitText(page, '#confirm-ok', 'Discard 2 held deliveries');
    expect(await text('#confirm-title')).toBe('Are you sure?');
    await shotOf(page, 'hold-discard-01-second-confirmation');
    await page.click('#confirm-ok');
    // Parked by the drain at once or a moment later ("Discarded: parking 2 held deliveries, no run."
    // until the page's check finds none waiting): the status ends on their being parked, never a run.
    await waitText(page, '#status', /^(Discarded: 2 held deliveries are parked, no run\.|Every discarded delivery is parked now\.)$/);
    expect(await page.locator('#held-callout').isVisible()).toBe(false);

    // Parked, listed with the reason, and no run.
    for (const deliveryId of kept) {
      await waitText(page, `#parked-body tr[data-id="${deliveryId}"]`, 'discarded_by_operator', 15_000);
    }
    expect((await server.adminOk('GET', `/admin/routines/${routineId}/runs`, undefined, 200)).runs).toEqual([]);
    const entry = await server.auditEntry(routineId, 'webhook.release', 'the discard on the audit trail');
    expect(entry).toMatchObject({ actor: { display: 'operator on call' }, detail: 'discarded 2 held deliveries' });
    expect(problems).toEqual([]);
    expect(refused).toEqual([]);
  });
});
