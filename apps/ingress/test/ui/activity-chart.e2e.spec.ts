/**
 * The Config page's chart of the last 24 hours in Debian's headless Chromium (playwright-core)
 * against an in-process ingress: a webhook with a filter and a schema gets accepted, filtered,
 * filter-error and refused traffic, and the chart shows it as stacked SVG bars with a legend, the
 * totals in words (the SVG's label too) and a table per hour; a later refusal shows after
 * "Refresh attempts". No CSP or Trusted Types violation. Screenshots in test-artifacts/ui/.
 */
import { eventually } from '@wts/testing';
import { join } from 'node:path';
import { usePageTest } from '../../../../test/support/page-test.kit';
import { artifactsDir } from '../../../../test/support/ui-test-server';

jest.setTimeout(30_000);

const WRONG_SECRET = `whsec_${'A'.repeat(43)}`;

describe('Config page, last 24 hours chart (browser)', () => {
  const { server, page, problems, text, openConfig } = usePageTest();
  const artifacts = artifactsDir();
  let routineId = '';
  let webhookId = '';
  let secret = '';

  /** Sum of data-value of the bars' segments of one series. */
  const seriesTotal = (series: string): Promise<number> =>
    page
      .locator(`#activity-chart-svg rect[data-series="${series}"]`)
      .evaluateAll((rects) =>
        rects.reduce((sum, rect) => sum + Number((rect as unknown as { getAttribute(n: string): string }).getAttribute('data-value')), 0),
      );

  beforeAll(async () => {
    const ops = await server.createAccount('chart@example.com');
    routineId = (await server.createRoutine({ name: 'Charted', account_scope: [ops.id] })).id;
    const webhook = await server.adminOk(
      'POST',
      `/admin/routines/${routineId}/webhook/enable`,
      { default_account: ops.email, account_override_allowed: false },
      200,
    );
    webhookId = webhook.webhook_id;
    secret = webhook.secret;
    await server.adminOk(
      'PATCH',
      `/admin/routines/${routineId}/webhook`,
      { filter: 'body.kind == "go"', payload_schema: { type: 'object' } },
      200,
    );
    const sent: number[] = [];
    for (const data of [
      { kind: 'go' },
      { kind: 'go' },
      { kind: 'go' },
      { kind: 'go' },
      { kind: 'stop' },
      { kind: 'stop' },
      { other: 1 },
      'text',
    ]) {
      sent.push((await server.deliver(webhookId, secret, { data })).status);
    }
    sent.push((await server.deliver(webhookId, WRONG_SECRET)).status);
    expect(sent).toEqual([202, 202, 202, 202, 200, 200, 202, 400, 404]);
  });

  it('draws the hours as stacked bars with a legend and the totals in words', async () => {
    await openConfig(routineId);
    await page.locator('#activity-chart-svg').waitFor();

    expect(await page.locator('#activity-chart-svg g.chart-bar').count()).toBe(24);
    expect(await seriesTotal('accepted')).toBe(4);
    expect(await seriesTotal('filter_errors')).toBe(1);
    expect(await seriesTotal('filtered')).toBe(2);
    expect(await seriesTotal('refused')).toBe(2);

    const legend = await page.locator('#activity-chart-legend li').allTextContents();
    expect(legend).toEqual([
      'Accepted: 4',
      'Accepted, filter failed: 1',
      'Filtered out: 2',
      "Refused: 2 (Payload does not match the webhook's schema 1, Wrong secret 1)",
    ]);
    const summary =
      "Last 24 hours: 4 accepted, 1 filter error, 2 filtered out, 2 refused (Payload does not match the webhook's schema 1, Wrong secret 1).";
    expect(await text('#activity-chart-totals')).toBe(summary);
    expect(await page.locator('#activity-chart-svg').getAttribute('aria-label')).toBe(summary);
    expect(await page.locator('#activity-chart-svg').getAttribute('role')).toBe('img');
    // The refused segment names its reasons (a tooltip), and the table has one row per hour.
    expect(await page.locator('#activity-chart-svg rect[data-series="refused"] title').allTextContents()).toEqual([
      expect.stringMatching(/Refused 2: Payload does not match the webhook's schema 1, Wrong secret 1$/),
    ]);
    expect(await page.locator('#activity-chart-body tr').count()).toBe(24);
    // The filter error is in the attempts listing too, in words that say it was accepted.
    expect(await page.locator('#attempts-body').textContent()).toContain('Accepted, but the filter failed to evaluate');
    await page.locator('#activity-chart').screenshot({ path: join(artifacts, 'activity-chart.png') });
  });

  it('refreshes with the attempts listing', async () => {
    expect((await server.deliver(webhookId, WRONG_SECRET)).status).toBe(404);
    await eventually(
      async () => {
        await page.click('#refresh-attempts');
        return (await text('#activity-chart-totals')).includes('3 refused') || undefined;
      },
      5_000,
      'the chart to show the third refusal',
      200,
    );
    expect(await seriesTotal('refused')).toBe(3);
    expect(problems).toEqual([]);
  });
});
