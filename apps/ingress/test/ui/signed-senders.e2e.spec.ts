/**
 * Signed senders on the Config page, in Debian's headless Chromium driven by playwright-core: the
 * verification choice in the enable form (bearer by default; Standard Webhooks, GitHub, Stripe),
 * the override locked off for a signed scheme, a GitHub webhook enabled with a pasted secret that
 * is never shown again, rotating it with the provider's new secret, a Standard Webhooks webhook
 * whose made whsec_ secret is shown once with the sender's steps, a bad Stripe secret refused in
 * place with the server's own words, and the new rejected-attempt reasons in words. Screenshots in
 * test-artifacts/ui/.
 */
import { eventually } from '@wts/testing';
import { refreshUntil, usePageTest } from '../../../../test/support/page-test.kit';

jest.setTimeout(30_000);

/** Secrets an operator pastes: the page must never show them once the server has them. */
const GITHUB_SECRET = 'gh-hook-secret-0123456789-abcdefghij';
const GITHUB_SECRET_ROTATED = 'gh-hook-secret-rotated-9876543210-zyx';
const STRIPE_SECRET = 'whsec_stripeEndpointSecret0123456789ABCDEF';

describe('Signed senders on the Config page (browser)', () => {
  const { server, page, shot, text, waitText, visible, everythingShown, openConfig } = usePageTest();
  let routines: Record<'github' | 'standard' | 'stripe', string>;
  let githubWebhookId = '';

  const activeId = (): Promise<string> =>
    page
      .locator(':focus')
      .first()
      .getAttribute('id')
      .then((id) => id ?? '');

  beforeAll(async () => {
    routines = await server.createScopedRoutines('ops@example.com', {
      github: 'GitHub issues',
      standard: 'Svix events',
      stripe: 'Stripe payments',
    });
  });

  it('offers the verification choice: bearer by default; a signed scheme asks for its secret and turns the override off, saying why', async () => {
    await openConfig(routines.github);
    await waitText('#webhook-state', 'Not configured');
    expect(await page.isChecked('#scheme-bearer')).toBe(true);
    expect(await visible('#signing-secret-field')).toBe(false);
    expect(await text('#scheme-github-hint')).toContain('X-Hub-Signature-256');
    expect(await text('#scheme-stripe-hint')).toContain('Stripe-Signature');

    await page.check('#override');
    await page.check('#scheme-github');
    expect(await page.isDisabled('#override')).toBe(true);
    expect(await page.isChecked('#override')).toBe(false);
    expect(await visible('#override-signed')).toBe(true);
    expect(await text('#override-signed')).toContain('default account');
    expect(await visible('#signing-secret-field')).toBe(true);
    expect(await text('#signing-secret-label')).toBe('GitHub webhook secret');
    // A secret field like the page's others: masked text, never offered to a password store.
    const field = page.locator('#signing-secret');
    expect(await field.getAttribute('type')).toBe('text');
    expect(await field.getAttribute('class')).toBe('masked');
    expect(await field.getAttribute('autocomplete')).toBe('off');

    // Back to bearer: the override is free again, as the operator left it.
    await page.check('#scheme-bearer');
    expect(await page.isDisabled('#override')).toBe(false);
    expect(await page.isChecked('#override')).toBe(true);
    expect(await visible('#override-signed')).toBe(false);
    expect(await visible('#signing-secret-field')).toBe(false);

    await page.check('#scheme-standard_webhooks');
    expect(await text('#signing-secret-label')).toBe('Signing secret (optional)');
    expect(await text('#signing-secret-help')).toContain('Leave empty to have one made');
    expect(await page.isDisabled('#override')).toBe(true);
    await shot('signed-01-verification-choice');
  });

  it('enables with GitHub: the secret is asked for in place, then the pasted one is never shown; the summary names the scheme', async () => {
    await page.check('#scheme-github');
    await page.click('#enable');
    await waitText('#signing-secret-error', 'Paste the GitHub webhook secret');
    expect(await activeId()).toBe('signing-secret');
    expect((await server.webhookView(routines.github)).state).toBe('not_configured');

    await page.fill('#signing-secret', GITHUB_SECRET);
    await page.click('#enable');
    await waitText('#webhook-state', 'Enabled');
    await page.locator('#secret-panel').waitFor();
    expect(await activeId()).toBe('secret-title');
    expect(await text('#secret-title')).toBe('Set up the webhook in GitHub');
    expect(await visible('#secret-field')).toBe(false);
    expect(await page.inputValue('#secret-value')).toBe('');
    expect(await visible('#curl-block')).toBe(false);
    const url = await page.inputValue('#secret-url');
    expect(url).toMatch(new RegExp(`^${server.baseUrl}/workflow-webhooks/whk_[A-Za-z0-9_-]{16,}$`));
    githubWebhookId = url.slice(url.lastIndexOf('/') + 1);
    const steps = await page.locator('#sender-steps li').allTextContents();
    expect(steps).toEqual(
      expect.arrayContaining([
        'Payload URL: the webhook URL above.',
        'Content type: application/json.',
        'Secret: the one you pasted here.',
      ]),
    );
    expect(await text('#secret-warning')).toContain('not shown again');
    expect(await everythingShown()).not.toContain(GITHUB_SECRET);

    expect(await text('#webhook-verification')).toBe('GitHub signature');
    expect(await text('#webhook-override')).toBe('Not allowed');
    // The page cannot sign for GitHub: no test form, a note saying where to test from.
    expect(await visible('#test-form')).toBe(false);
    expect(await text('#test-signed')).toMatch(/^Send a test from GitHub .*the page cannot sign requests for GitHub\.$/);
    expect(await server.webhookView(routines.github)).toMatchObject({
      state: 'enabled',
      verification: { scheme: 'github' },
      account_override_allowed: false,
    });
    await shot('signed-02-github-enabled');

    await page.click('#dismiss-secret');
    expect(await visible('#secret-panel')).toBe(false);
  });

  it('lists refusals of the GitHub webhook in words: a bearer secret (wrong scheme), a signature that does not match', async () => {
    expect((await server.deliver(githubWebhookId, `whsec_${'A'.repeat(43)}`)).status).toBe(404);
    const forged = await server.http('POST', `/workflow-webhooks/${githubWebhookId}`, {
      headers: {
        'content-type': 'application/json',
        'x-hub-signature-256': `sha256=${'0'.repeat(64)}`,
        'x-github-delivery': 'd2f1c6a0-0000-4000-8000-000000000001',
        'x-github-event': 'push',
      },
      body: '{"ref":"refs/heads/main"}',
    });
    expect(forged.status).toBe(404);
    await eventually(
      async () => {
        await page.click('#refresh-attempts');
        return (await page.locator('#attempts-body tr').count()) >= 2;
      },
      4_000,
      'both rejected attempts listed',
    );
    const reasons = await page.locator('#attempts-body tr td:nth-child(2)').allTextContents();
    expect(reasons.sort()).toEqual([
      'Signature does not match (wrong signing secret, or the body was changed)',
      'Wrong verification (signed for another scheme, or a bearer secret to a signed webhook)',
    ]);
  });

  it("rotates a GitHub webhook with the provider's new secret: asked for in a form, a bad one refused in place", async () => {
    await page.click('#rotate');
    await page.locator('#rotate-form').waitFor();
    expect(await page.locator('#confirm-dialog').isVisible()).toBe(false);
    expect(await activeId()).toBe('rotate-secret');
    expect(await page.getAttribute('#rotate', 'aria-expanded')).toBe('true');
    expect(await text('#rotate-secret-label')).toBe('New GitHub webhook secret');

    await page.click('#rotate-submit');
    await waitText('#rotate-secret-error', 'Paste the new GitHub webhook secret');
    await page.fill('#rotate-secret', 'too-short');
    await page.click('#rotate-submit');
    await waitText('#rotate-secret-error', 'The secret was refused: a GitHub webhook secret must be 16 to 1024 characters');
    expect(await page.getAttribute('#rotate-secret', 'aria-invalid')).toBe('true');
    expect(await activeId()).toBe('rotate-secret');
    await shot('signed-03-github-rotate-refused');

    // Cancel drops what was typed and gives focus back to Rotate.
    await page.click('#rotate-cancel');
    expect(await visible('#rotate-form')).toBe(false);
    expect(await activeId()).toBe('rotate');
    await page.click('#rotate');
    expect(await page.inputValue('#rotate-secret')).toBe('');

    await page.fill('#rotate-secret', GITHUB_SECRET_ROTATED);
    await page.click('#rotate-submit');
    await page.locator('#secret-panel').waitFor();
    await waitText('#status', 'Secret rotated');
    expect(await visible('#rotate-form')).toBe(false);
    expect(await page.getAttribute('#rotate', 'aria-expanded')).toBe('false');
    expect(await text('#secret-title')).toBe('Set up the webhook in GitHub');
    expect(await everythingShown()).not.toContain(GITHUB_SECRET_ROTATED);
    expect(await text('#webhook-verification')).toBe('GitHub signature');
    // The trail follows the store a moment behind: refresh until the rotation is listed.
    await refreshUntil(
      page,
      '#refresh-audit',
      async () => /^Secret rotated by the bootstrap token/.test(await text('#audit-list > li:first-child')),
      'the rotation in the audit trail',
    );
    expect(await text('#audit-list > li:first-child')).toMatch(/^Secret rotated by the bootstrap token/);
    await shot('signed-04-github-rotated');
  });

  it("enables Standard Webhooks: the made whsec_ secret is shown once with the sender's steps instead of curl; rotate makes a new one", async () => {
    await openConfig(routines.standard);
    await waitText('#webhook-state', 'Not configured');
    await page.check('#scheme-standard_webhooks');
    await page.click('#enable');
    await page.locator('#secret-panel').waitFor();
    await waitText('#webhook-state', 'Enabled');
    const secret = await page.inputValue('#secret-value');
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(await visible('#secret-field')).toBe(true);
    expect(await text('#secret-title')).toBe('Copy the secret now: it is shown once');
    expect(await text('#secret-warning')).toContain('shown only once');
    expect(await visible('#curl-block')).toBe(false);
    expect(await text('#curl-example')).toBe('');
    expect(await text('#sender-steps-label')).toBe("In the sender's endpoint settings");
    expect(await page.locator('#sender-steps li').allTextContents()).toContain(
      "Signing secret: paste this secret in the sender's endpoint settings.",
    );
    expect(await text('#webhook-verification')).toBe('Standard Webhooks signature');
    expect(await visible('#test-form')).toBe(false);
    expect(await text('#test-signed')).toContain('Send a test from your sender');
    expect(await server.webhookView(routines.standard)).toMatchObject({ verification: { scheme: 'standard_webhooks' } });
    await shot('signed-05-standard-webhooks-secret');

    // Rotate works as for a bearer secret: confirmed, a new secret shown once.
    await page.click('#rotate');
    expect(await visible('#rotate-form')).toBe(false);
    expect(await text('#confirm-message')).toContain('signing secret');
    await page.click('#confirm-ok');
    await waitText('#status', 'Secret rotated');
    const rotated = await page.inputValue('#secret-value');
    expect(rotated).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(rotated).not.toBe(secret);

    await page.click('#dismiss-secret');
    expect(await everythingShown()).not.toContain(rotated);
  });

  it("refuses a bad Stripe secret in place with the server's words; a good one enables with Stripe's steps", async () => {
    await openConfig(routines.stripe);
    await waitText('#webhook-state', 'Not configured');
    await page.check('#scheme-stripe');
    expect(await text('#signing-secret-label')).toBe('Stripe signing secret');
    await page.fill('#signing-secret', 'sk_live_this_is_an_api_key_not_a_signing_secret');
    await page.click('#enable');
    await waitText('#signing-secret-error', "The secret was refused: a Stripe signing secret is the endpoint's whsec_… value");
    expect(await page.getAttribute('#signing-secret', 'aria-invalid')).toBe('true');
    expect(await activeId()).toBe('signing-secret');
    expect(await visible('#enable-error')).toBe(false);
    expect((await server.webhookView(routines.stripe)).state).toBe('not_configured');
    await shot('signed-06-stripe-secret-refused');

    await page.fill('#signing-secret', STRIPE_SECRET);
    await page.click('#enable');
    await waitText('#webhook-state', 'Enabled');
    await page.locator('#secret-panel').waitFor();
    expect(await text('#secret-title')).toBe('Set up the endpoint in Stripe');
    expect(await page.locator('#sender-steps li').allTextContents()).toContain('Endpoint URL: the webhook URL above.');
    expect(await text('#webhook-verification')).toBe('Stripe signature');
    expect(await everythingShown()).not.toContain(STRIPE_SECRET);
    expect(await text('#test-signed')).toContain('Send a test event from Stripe');

    // Rotating asks for Stripe's new secret.
    await page.click('#rotate');
    await page.locator('#rotate-form').waitFor();
    expect(await text('#rotate-form-hint')).toContain('Roll secret');
    await page.press('#rotate-secret', 'Escape');
    expect(await visible('#rotate-form')).toBe(false);
    await shot('signed-07-stripe-enabled');
  });
});
