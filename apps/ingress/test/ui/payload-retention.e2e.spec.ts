/**
 * The payload retention on the Config page in Debian's headless Chromium (playwright-core), against
 * an in-process ingress: the webhook shows "default (30 days)" until an operator sets its own days;
 * a value outside 1–3650 is refused on the page; a saved one is shown after a reload, is what the
 * API answers, and is on the audit trail; "Use the default" goes back. A viewer sees the retention
 * but no control, and why. The line next to the control says a change applies from now on.
 */
import { shotOf, waitText } from '../../../../test/support/page-test.kit';
import { useTabsTest } from '../../../../test/support/ui-tab';

jest.setTimeout(60_000);

describe('Payload retention on the Config page (browser)', () => {
  const { server, problems, refused, openTab } = useTabsTest();

  it('an operator sets the days (shown after a reload, on the trail), a bad value is refused, and the default comes back', async () => {
    const operatorKey = await server.createApiKey('retention operator', 'operator');
    const { routineId } = await server.createEnabledRoutine('retention@example.com', 'Customer events');
    const path = `/admin/routines/${routineId}/webhook`;

    const url = `${server.baseUrl}/ui/routines/${routineId}/config`;
    const page = await openTab(url, operatorKey);
    await waitText(page, '#retention-current', 'default (30 days)');
    expect(await page.locator('#retention-help').textContent()).toContain('applies to deliveries received from now on');
    expect(await page.locator('#retention-default').isDisabled()).toBe(true);

    // Refused on the page, nothing sent.
    await page.fill('#retention-days', '3651');
    await page.click('#retention-save');
    await waitText(page, '#retention-error', 'whole number of days from 1 to 3650');
    expect((await server.adminOk('GET', path, undefined, 200)).payload_retention_days).toBeNull();

    await page.fill('#retention-days', '45');
    await page.click('#retention-save');
    await waitText(page, '#retention-current', '45 days');
    expect(await page.locator('#retention-error').isVisible()).toBe(false);
    await waitText(page, '#status', 'kept for 45 days');
    expect(await server.adminOk('GET', path, undefined, 200)).toMatchObject({
      payload_retention_days: 45,
      payload_retention_seconds_effective: 45 * 86_400,
    });
    await shotOf(page, 'payload-retention-01-saved');

    await page.reload();
    await waitText(page, '#retention-current', '45 days');
    expect(await page.inputValue('#retention-days')).toBe('45');
    const entry = await server.auditEntry(routineId, 'webhook.retention', 'the change on the audit trail');
    expect(entry).toMatchObject({ actor: { display: 'retention operator' }, detail: 'payload retention 45 days' });

    await page.click('#retention-default');
    await waitText(page, '#retention-current', 'default (30 days)');
    expect((await server.adminOk('GET', path, undefined, 200)).payload_retention_days).toBeNull();
    expect(problems).toEqual([]);
    expect(refused).toEqual([]);
  });

  it('a viewer sees the retention, no control, and which role changes it', async () => {
    const viewerKey = await server.createApiKey('retention viewer', 'viewer');
    const { routineId } = await server.createEnabledRoutine('retention-viewer@example.com', 'Read only');
    const path = `/admin/routines/${routineId}/webhook`;
    await server.adminOk('PATCH', path, { payload_retention_days: 7 }, 200);

    const page = await openTab(`${server.baseUrl}/ui/routines/${routineId}/config`, viewerKey, {}, 'ignored');
    await waitText(page, '#retention-current', '7 days');
    expect(await page.locator('#retention-form').isVisible()).toBe(false);
    await waitText(page, '#retention-role-note', 'Changing the payload retention needs the operator role');
    expect(problems).toEqual([]);
  });
});
