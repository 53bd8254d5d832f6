/**
 * The providers with a URL-verification handshake on the Config page, in Debian's headless Chromium
 * driven by playwright-core (the sibling of signed-senders.e2e.spec.ts): each scheme offered with
 * its one-line "where to paste this" hint and its own fields (Discord's public key, Graph's
 * clientState, Meta's App Secret and verify token), a missing verify token and a bad public key
 * refused in place, a Meta webhook enabled with the provider's steps and nothing pasted shown again,
 * its last handshake shown ("none yet", then answered once Meta's check came in, then refused), and
 * rotating it asking for both of Meta's values. Screenshots in test-artifacts/ui/.
 */
import { refreshUntil, usePageTest } from '../../../../test/support/page-test.kit';

jest.setTimeout(30_000);

const META_APP_SECRET = 'a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6';
const META_VERIFY_TOKEN = 'meta-verify-token-0123';
const META_VERIFY_TOKEN_ROTATED = 'meta-verify-token-rotated-456';

/** Each handshake scheme: its radio's label, what its hint names, its field's label. */
const SCHEMES = [
  ['slack', 'Slack', 'Request URL', 'Slack signing secret'],
  ['zoom', 'Zoom', 'Event notification endpoint URL', 'Zoom secret token'],
  ['discord', 'Discord', 'Endpoint URL', 'Discord public key'],
  ['twitch', 'Twitch', 'transport.callback', 'Twitch EventSub secret'],
  ['x', 'X (Twitter)', 'CRC', 'X consumer secret'],
  ['meta', 'Meta', 'Callback URL', 'Meta app secret'],
  ['microsoft_graph', 'Microsoft Graph', 'notificationUrl', 'Microsoft Graph clientState'],
] as const;

describe('Handshake providers on the Config page (browser)', () => {
  const { server, page, shot, text, waitText, visible, everythingShown, openConfig } = usePageTest();
  let metaRoutine = '';
  let discordRoutine = '';
  let metaWebhookId = '';

  const activeId = async (): Promise<string> => (await page.locator(':focus').first().getAttribute('id')) ?? '';
  const metaCheck = (token: string): Promise<{ status: number; text: string }> =>
    server.http(
      'GET',
      `/workflow-webhooks/${metaWebhookId}?hub.mode=subscribe&hub.verify_token=${encodeURIComponent(token)}&hub.challenge=1158201444`,
    );

  /** Refreshes the rejected attempts (and with them the last handshake) until `pattern` shows. */
  async function waitForHandshake(pattern: RegExp): Promise<void> {
    await refreshUntil(
      page,
      '#refresh-attempts',
      async () => pattern.test(await text('#webhook-handshake-result')),
      `a handshake matching ${pattern}`,
    );
    expect(await text('#webhook-handshake-result')).toMatch(pattern);
  }

  beforeAll(async () => {
    ({ meta: metaRoutine, discord: discordRoutine } = await server.createScopedRoutines('ops@example.com', {
      meta: 'Meta page events',
      discord: 'Discord events',
    }));
  });

  it('offers each handshake provider with where to paste the URL and its own fields', async () => {
    await openConfig(discordRoutine);
    await waitText('#webhook-state', 'Not configured');
    for (const [scheme, label, where, field] of SCHEMES) {
      expect(await text(`label[for="scheme-${scheme}"]`)).toBe(label);
      expect(await text(`#scheme-${scheme}-hint`)).toContain(where);
      await page.check(`#scheme-${scheme}`);
      expect({ scheme, label: await text('#signing-secret-label') }).toEqual({ scheme, label: field });
      expect({ scheme, verifyToken: await visible('#verify-token-field') }).toEqual({ scheme, verifyToken: scheme === 'meta' });
      expect(await page.isDisabled('#override')).toBe(true);
    }
    await page.check('#scheme-meta');
    await shot('handshake-01-meta-fields');
  });

  it("refuses a bad Discord public key in place with the server's words", async () => {
    await page.check('#scheme-discord');
    await page.fill('#signing-secret', 'not-a-public-key');
    await page.click('#enable');
    await waitText('#signing-secret-error', 'The secret was refused: a Discord public key is');
    expect(await activeId()).toBe('signing-secret');
    expect((await server.webhookView(discordRoutine)).state).toBe('not_configured');
  });

  it("enables Meta: the verify token is asked for in place; then Meta's steps, nothing pasted shown again, no handshake yet", async () => {
    await openConfig(metaRoutine);
    await page.check('#scheme-meta');
    await page.fill('#signing-secret', META_APP_SECRET);
    await page.click('#enable');
    await waitText('#signing-secret-error', 'Type the verify token');
    expect(await activeId()).toBe('verify-token');

    await page.fill('#verify-token', META_VERIFY_TOKEN);
    await page.click('#enable');
    await page.locator('#secret-panel').waitFor();
    expect(await text('#secret-title')).toBe('Set up the webhook in Meta');
    expect((await page.locator('#sender-steps li').allTextContents())[0]).toContain('Callback URL');
    expect(await text('#webhook-verification')).toBe('Meta signature');
    const shown = await everythingShown();
    expect(shown).not.toContain(META_APP_SECRET);
    expect(shown).not.toContain(META_VERIFY_TOKEN);
    expect(await visible('#webhook-handshake')).toBe(true);
    expect(await text('#webhook-handshake-where')).toContain('Verify token');
    await waitText('#webhook-handshake-result', 'None yet');
    metaWebhookId = (await server.webhookView(metaRoutine)).webhook_id;
    await shot('handshake-02-meta-enabled');
  });

  it("shows the last handshake: answered once Meta's check came in, refused after one with another token", async () => {
    expect(await metaCheck(META_VERIFY_TOKEN)).toMatchObject({ status: 200, text: '1158201444' });
    await waitForHandshake(/^Handshake answered/);
    const reasons = await page.locator('#attempts-body tr td:nth-child(2)').allTextContents();
    expect(reasons[0]).toMatch(/^Handshake answered/);
    await shot('handshake-03-answered');

    expect((await metaCheck('not-the-verify-token')).status).toBe(404);
    await waitForHandshake(/^Handshake refused/);
  });

  it("rotates Meta's credential: the form asks for the App Secret and the verify token", async () => {
    await page.click('#rotate');
    await page.locator('#rotate-form').waitFor();
    expect(await text('#rotate-secret-label')).toBe('New Meta app secret');
    expect(await visible('#rotate-verify-token-field')).toBe(true);
    await page.fill('#rotate-secret', META_APP_SECRET.replace('a1', 'f9'));
    await page.click('#rotate-submit');
    await waitText('#rotate-secret-error', 'Type the verify token');
    expect(await activeId()).toBe('rotate-verify-token');

    await page.fill('#rotate-verify-token', META_VERIFY_TOKEN_ROTATED);
    await page.click('#rotate-submit');
    await waitText('#status', 'Secret rotated');
    expect(await everythingShown()).not.toContain(META_VERIFY_TOKEN_ROTATED);
    expect((await metaCheck(META_VERIFY_TOKEN)).status).toBe(404);
    expect(await metaCheck(META_VERIFY_TOKEN_ROTATED)).toMatchObject({ status: 200, text: '1158201444' });
    await shot('handshake-04-meta-rotated');
  });
});
