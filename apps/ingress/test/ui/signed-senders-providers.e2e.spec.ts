/**
 * The Config page's choice of the providers' schemes (Shopify, GitLab, Linear, Sentry, PagerDuty,
 * Zendesk, Svix), in Debian's headless Chromium driven by playwright-core: each radio names its
 * provider's header and where the URL is pasted, asks for that provider's secret in its words, and
 * locks the override off; a Linear webhook enabled with a pasted secret never shown again, with
 * Linear's steps; a bad Sentry secret refused in place with the server's words; GitLab's rotate
 * asking for GitLab's new token. (GitHub, Stripe and Standard Webhooks: signed-senders.e2e.spec.ts.)
 */
import { usePageTest } from '../../../../test/support/page-test.kit';

jest.setTimeout(30_000);

const LINEAR_SECRET = 'lin_wh_linearSigningSecret0123456789ABCDEFghij';
const GITLAB_TOKEN = 'gitlab-secret-token-0123456789-abcdef';

/** Per scheme: the header its hint names, where the URL is pasted, and the secret field's label. */
const CHOICES = [
  ['shopify', 'X-Shopify-Hmac-Sha256', 'Settings → Notifications → Webhooks', 'Shopify client secret'],
  ['gitlab', 'X-Gitlab-Token', 'Settings → Webhooks', 'GitLab secret token'],
  ['linear', 'Linear-Signature', 'Settings → API → Webhooks', 'Linear signing secret'],
  ['sentry', 'Sentry-Hook-Signature', 'Developer Settings', 'Sentry client secret'],
  ['pagerduty', 'X-PagerDuty-Signature', 'Generic Webhooks (v3)', 'PagerDuty signing secret'],
  ['zendesk', 'X-Zendesk-Webhook-Signature', 'Apps and integrations → Webhooks', 'Zendesk signing secret'],
  ['svix', 'svix-signature', 'Svix portal', 'Svix signing secret'],
] as const;

describe("Signed senders on the Config page: the providers' schemes (browser)", () => {
  const { server, page, shot, text, waitText, visible, everythingShown, openConfig } = usePageTest();
  let routines: Record<'linear' | 'sentry' | 'gitlab', string>;

  beforeAll(async () => {
    routines = await server.createScopedRoutines('ops@example.com', {
      linear: 'Linear issues',
      sentry: 'Sentry alerts',
      gitlab: 'GitLab pushes',
    });
  });

  it("offers each provider's scheme: its header and where to paste the URL in one line, its own secret field, the override off", async () => {
    await openConfig(routines.linear);
    await waitText('#webhook-state', 'Not configured');
    for (const [scheme, header, where, label] of CHOICES) {
      const hint = await text(`#scheme-${scheme}-hint`);
      expect({ scheme, header: hint.includes(header), where: hint.includes(where) }).toEqual({ scheme, header: true, where: true });
      await page.check(`#scheme-${scheme}`);
      expect(await visible('#signing-secret-field')).toBe(true);
      expect(await text('#signing-secret-label')).toBe(label);
      expect(await page.isDisabled('#override')).toBe(true);
      expect(await page.getAttribute('#signing-secret', 'required')).not.toBeNull();
    }
    await shot('signed-providers-01-choices');
  });

  it("enables Linear with its pasted secret: asked for in place first, then never shown; Linear's steps and summary", async () => {
    await page.check('#scheme-linear');
    await page.click('#enable');
    await waitText('#signing-secret-error', "Paste the Linear webhook's signing secret");
    expect((await server.webhookView(routines.linear)).state).toBe('not_configured');

    await page.fill('#signing-secret', LINEAR_SECRET);
    await page.click('#enable');
    await waitText('#webhook-state', 'Enabled');
    await page.locator('#secret-panel').waitFor();
    expect(await text('#secret-title')).toBe('Set up the webhook in Linear');
    expect(await text('#sender-steps-label')).toContain('Settings → API → Webhooks');
    expect(await page.locator('#sender-steps li').allTextContents()).toContain('URL: the webhook URL above.');
    expect(await visible('#secret-field')).toBe(false);
    expect(await everythingShown()).not.toContain(LINEAR_SECRET);
    expect(await text('#webhook-verification')).toBe('Linear signature');
    expect(await text('#test-signed')).toContain('Send a test from Linear');
    expect(await server.webhookView(routines.linear)).toMatchObject({ state: 'enabled', verification: { scheme: 'linear' } });
    await shot('signed-providers-02-linear-enabled');
  });

  it("refuses a Sentry auth token in place, with the server's words saying where the client secret is", async () => {
    await openConfig(routines.sentry);
    await waitText('#webhook-state', 'Not configured');
    await page.check('#scheme-sentry');
    await page.fill('#signing-secret', 'sntrys_thisIsAnAuthTokenNotAClientSecret');
    await page.click('#enable');
    await waitText('#signing-secret-error', "The secret was refused: a Sentry secret is the integration's Client Secret");
    expect(await text('#signing-secret-error')).toContain('Developer Settings');
    expect(await page.getAttribute('#signing-secret', 'aria-invalid')).toBe('true');
    expect((await server.webhookView(routines.sentry)).state).toBe('not_configured');
    await shot('signed-providers-03-sentry-refused');
  });

  it("enables GitLab with its token, and rotating asks for GitLab's new token", async () => {
    await openConfig(routines.gitlab);
    await waitText('#webhook-state', 'Not configured');
    await page.check('#scheme-gitlab');
    await page.fill('#signing-secret', GITLAB_TOKEN);
    await page.click('#enable');
    await waitText('#webhook-state', 'Enabled');
    await page.locator('#secret-panel').waitFor();
    expect(await page.locator('#sender-steps li').allTextContents()).toContain('Secret token: the one you pasted here.');
    expect(await text('#webhook-verification')).toBe('GitLab secret token');
    await page.click('#dismiss-secret');

    await page.click('#rotate');
    await page.locator('#rotate-form').waitFor();
    expect(await text('#rotate-secret-label')).toBe('New GitLab secret token');
    expect(await text('#rotate-form-hint')).toContain('Secret token of the GitLab webhook');
    await page.press('#rotate-secret', 'Escape');
    expect(await visible('#rotate-form')).toBe(false);
    expect(await everythingShown()).not.toContain(GITLAB_TOKEN);
    await shot('signed-providers-04-gitlab-rotate');
  });
});
