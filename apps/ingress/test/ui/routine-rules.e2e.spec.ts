/**
 * Routine rules on the Config page, in Debian's headless Chromium driven by playwright-core, against
 * an in-process ingress and dispatcher: an operator types a filter and tries it, unsaved, on a
 * pasted sample ("would be filtered"), changes the sample ("would run"), types an invalid filter and
 * sees where it fails (on trying and on saving), saves a valid one (the admin API then answers it),
 * takes one of the last deliveries' payload as the sample, and edits and tries a payload schema (a
 * mismatch is listed; a schema that is not JSON is reported before any request). A viewer sees the
 * saved rules read-only, no save or try, and why. Screenshots in test-artifacts/ui/.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { eventually } from '@wts/testing';
import { shotOf, waitText } from '../../../../test/support/page-test.kit';
import { useTabsTest } from '../../../../test/support/ui-tab';
import { artifactsDir } from '../../../../test/support/ui-test-server';

jest.setTimeout(60_000);

const FILTER = 'body.action == "opened"';
interface Listed {
  readonly delivery_id: string;
  readonly payload_state: string;
}

const SCHEMA = { type: 'object', required: ['action'], properties: { action: { type: 'string' } } };

describe('Routine rules on the Config page (browser)', () => {
  /** Bodies the pages POSTed to …/webhook/rules/try, and PATCHed to …/webhook. */
  const tries: unknown[] = [];
  const patches: unknown[] = [];
  const { server, openTab } = useTabsTest({
    serverOptions: { erasures: true },
    onRequest: (request) => {
      const path = new URL(request.url()).pathname;
      if (request.method() === 'POST' && path.endsWith('/webhook/rules/try')) tries.push(request.postDataJSON());
      if (request.method() === 'PATCH' && path.endsWith('/webhook')) patches.push(request.postDataJSON());
    },
  });
  let routineId = '';
  let webhookPath = '';
  let deliveryId = '';
  /** A delivery whose payload is erased before the page opens. */
  let erasedId = '';
  let marker = '';

  const openAs = (token: string): Promise<Page> => openTab(`${server.baseUrl}/ui/routines/${routineId}/config`, token);

  /** Clicks Try and waits for this try's verdicts (the previous ones are cleared first). */
  async function tryIt(page: Page): Promise<void> {
    const before = tries.length;
    await page.click('#rules-try-run');
    await eventually(async () => tries.length > before, 5_000, 'the try request');
  }

  /** Delivers `body` and waits for its run: its id. */
  async function send(webhook: { id: string; secret: string }, body: unknown): Promise<string> {
    return (await server.deliverAndWaitForRun(webhook.id, webhook.secret, body)).deliveryId;
  }

  beforeAll(async () => {
    const account = await server.createAccount('rules@example.com');
    routineId = (await server.createRoutine({ name: 'Pull requests', account_scope: [account.id] })).id;
    webhookPath = `/admin/routines/${routineId}/webhook`;
    const enabled = await server.enableWebhook(routineId, account.email);
    const webhook = { id: enabled.webhook_id as string, secret: enabled.secret as string };
    marker = `marker-${randomUUID()}`;
    deliveryId = await send(webhook, { action: 'opened', marker });
    erasedId = await send(webhook, { action: 'opened', note: 'to be erased' });
    const erasure = await server.adminOk('POST', '/admin/erasures', { delivery_ids: [erasedId] }, 202);
    await eventually(
      async () => (await server.adminOk('GET', `/admin/erasures/${erasure.erasure_id as string}`, undefined, 200)).status === 'done',
      20_000,
      'the erasure done',
    );
    await eventually(
      async () => {
        const listed = (await server.adminOk('GET', `${webhookPath}/deliveries`, undefined, 200)).deliveries as Listed[];
        return (
          listed.some((one) => one.delivery_id === deliveryId) &&
          listed.some((one) => one.delivery_id === erasedId && one.payload_state === 'erased')
        );
      },
      10_000,
      'both deliveries listed, one erased',
    );
  });

  it('an operator tries a filter on samples, sees an invalid one fail with its position, saves one and tries a schema', async () => {
    const operatorKey = await server.createApiKey('rules operator', 'operator');
    const page = await openAs(operatorKey);
    await page.locator('#rules-filter').waitFor();
    expect(await page.inputValue('#rules-filter')).toBe('');
    expect(await page.locator('#rules-filter-help').textContent()).toContain('body.action == "opened" && !body.pull_request.draft');
    // Built by the script, not in config.html (whose labels the serving test checks): each control labelled here.
    const controls = await page
      .locator('#rules textarea, #rules select, #rules input')
      .evaluateAll((found) => found.map((control) => control.id));
    expect(controls.length).toBe(6);
    for (const id of controls) expect({ id, labels: await page.locator(`#rules label[for="${id}"]`).count() }).toEqual({ id, labels: 1 });

    // Tried unsaved on a pasted sample: filtered, then, the sample changed, it would run.
    await page.fill('#rules-filter', FILTER);
    await page.fill('#rules-sample', '{"action":"closed"}');
    await tryIt(page);
    await waitText(page, '#rules-try-filter', 'not matched — would be filtered (no run)');
    expect(tries.at(-1)).toMatchObject({
      sample: '{"action":"closed"}',
      content_type: 'application/json',
      filter: FILTER,
      payload_schema: null,
    });
    await page.fill('#rules-sample', '{"action":"opened"}');
    await tryIt(page);
    await waitText(page, '#rules-try-filter', /^Filter: matched — would run\.$/);
    expect((await server.adminOk('GET', webhookPath, undefined, 200)).filter).toBeNull();
    await shotOf(page, 'routine-rules-01-tried');

    // An invalid filter: the try and the save both say where it fails; nothing is saved.
    await page.fill('#rules-filter', 'body.action ==');
    await tryIt(page);
    await waitText(page, '#rules-try-filter', /^Filter: invalid — .*at 1:\d+/);
    await page.click('#rules-save');
    await waitText(page, '#rules-filter-error', /^filter: .*at 1:\d+/);
    expect(await page.locator('#rules-filter').getAttribute('aria-invalid')).toBe('true');
    expect((await server.adminOk('GET', webhookPath, undefined, 200)).filter).toBeNull();

    // A valid one saved: the admin API answers it, the error is gone, and it can be removed.
    await page.fill('#rules-filter', FILTER);
    await page.click('#rules-save');
    await waitText(page, '#status', 'Rules saved');
    expect(await server.adminOk('GET', webhookPath, undefined, 200)).toMatchObject({ filter: FILTER, payload_schema: null });
    expect(await page.locator('#rules-filter-error').isVisible()).toBe(false);
    expect(await page.locator('#rules-remove-filter').isVisible()).toBe(true);

    // One of the last deliveries as the sample: its payload, as stored; an erased one says so.
    await page.fill('#rules-sample', '{"action":"closed"}');
    await page.selectOption('#rules-sample-delivery', erasedId);
    await waitText(page, '#rules-sample-delivery-note', `Delivery ${erasedId}: its payload was erased: nothing to try.`);
    expect(await page.inputValue('#rules-sample')).toBe('{"action":"closed"}');
    await page.selectOption('#rules-sample-delivery', deliveryId);
    await waitText(page, '#rules-sample-delivery-note', `payload of delivery ${deliveryId}`);
    expect(JSON.parse(await page.inputValue('#rules-sample'))).toEqual({ action: 'opened', marker });
    await tryIt(page);
    await waitText(page, '#rules-try-filter', /^Filter: matched — would run\.$/);

    // A schema that is not JSON is reported on the page, with no request.
    await page.fill('#rules-schema', '{"type": ');
    const sent = { tries: tries.length, patches: patches.length };
    await page.click('#rules-try-run');
    await waitText(page, '#rules-schema-error', 'The payload schema is not valid JSON');
    await waitText(page, '#rules-try-error', 'Not tried');
    await page.click('#rules-save');
    await waitText(page, '#rules-schema-error', 'The payload schema is not valid JSON');
    expect({ tries: tries.length, patches: patches.length }).toEqual(sent);

    // A schema tried on a sample it does not fit: the mismatch is listed, where and why.
    await page.fill('#rules-schema', JSON.stringify(SCHEMA));
    await page.fill('#rules-sample', '{"action": 5}');
    await tryIt(page);
    await waitText(page, '#rules-try-schema', 'mismatch — would be refused');
    await waitText(page, '#rules-try-schema-errors li', /^\/action: .+ \(type\)$/);
    // Edited by hand, the sample is no longer the picked delivery's.
    expect(await page.inputValue('#rules-sample-delivery')).toBe('');
    expect(await page.locator('#rules-sample-delivery-note').textContent()).toBe('');
    expect(await page.locator('#rules-schema-error').isVisible()).toBe(false);
    await waitText(page, '#rules-try-filter', 'not matched — would be filtered');
    await page.fill('#rules-sample', '{"action": "opened"}');
    await tryIt(page);
    await waitText(page, '#rules-try-schema', /^Payload schema: conforms\.$/);
    expect(await page.locator('#rules-try-schema-errors').isVisible()).toBe(false);
    await page.locator('#rules').screenshot({ path: join(artifactsDir(), 'routine-rules-02-schema.png') });

    await page.click('#rules-save');
    await page.locator('#rules-remove-schema').waitFor();
    expect(await server.adminOk('GET', webhookPath, undefined, 200)).toMatchObject({ filter: FILTER, payload_schema: SCHEMA });
    expect(JSON.parse(await page.inputValue('#rules-schema'))).toEqual(SCHEMA);

    await page.click('#rules-remove-schema');
    await waitText(page, '#status', 'Payload schema removed');
    expect(await server.adminOk('GET', webhookPath, undefined, 200)).toMatchObject({ filter: FILTER, payload_schema: null });
    expect(await page.inputValue('#rules-schema')).toBe('');
  });

  it('a viewer sees the saved rules read-only, with no save or try, and which role changes them', async () => {
    const viewerKey = await server.createApiKey('rules viewer', 'viewer');
    await server.adminOk('PATCH', webhookPath, { filter: FILTER }, 200);
    const page = await openAs(viewerKey);
    await waitText(page, '#rules-role-note', 'Changing or trying the rules needs the operator role');
    expect(await page.inputValue('#rules-filter')).toBe(FILTER);
    expect(await page.locator('#rules-filter').getAttribute('readonly')).not.toBeNull();
    for (const control of ['#rules-save', '#rules-remove-filter', '#rules-try'])
      expect({ control, visible: await page.locator(control).isVisible() }).toEqual({ control, visible: false });
  });
});
