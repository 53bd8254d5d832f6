/**
 * Roles on the Config page, in a real browser (Debian's headless Chromium): signed in with an API
 * key of each role (issued with the bootstrap token), the page shows who is signed in, hides what
 * the role cannot do and says why in place, and never asks the API for what it would refuse; a 403
 * `insufficient_role` shows the server's detail. Admins issue a key from the page (shown once, with
 * a copy button), and revoke one after a confirmation. Screenshots go to test-artifacts/ui/.
 */
import type { Page } from 'playwright-core';
import { pageHelpers } from '../../../../test/support/page-test.kit';
import { seedTriageRoutine, useSignInTest } from '../../../../test/support/ui-tab';
import { UI_ADMIN_TOKEN } from '../../../../test/support/ui-test-server';

jest.setTimeout(30_000);

declare const sessionStorage: { readonly length: number; key(index: number): string | null; getItem(key: string): string | null };
declare const localStorage: { readonly length: number };
declare const navigator: { readonly clipboard: { readText(): Promise<string> } };
declare const document: { getElementById(id: string): { hidden: boolean } | null };

type Role = 'viewer' | 'operator' | 'admin';

describe('Config page: roles and API keys (browser)', () => {
  /** Admin API answers of 403 the page received (refused): it should ask only for what the role allows. */
  const {
    server,
    refused,
    signIn: signInAt,
  } = useSignInTest({
    prepare: (context, started) => context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: started.baseUrl }),
  });
  let page: Page;
  let keys = {} as Record<Role, string>;
  let routineId = '';
  let webhookId = '';
  let secret = '';

  const { shot, text, waitText, visible } = pageHelpers(() => page);
  const configUrl = (): string => `${server.baseUrl}/ui/routines/${routineId}/config`;

  /** A fresh tab (nothing kept from the previous one) signed in at `url` with `token`. */
  async function signIn(url: string, token: string): Promise<void> {
    page = await signInAt(url, token);
  }

  beforeAll(async () => {
    ({ keys, routineId, webhookId, secret } = await seedTriageRoutine(server, ['viewer', 'operator', 'admin']));
  });

  it('a viewer key: who is signed in, the listings, and every change hidden with why', async () => {
    await signIn(`${server.baseUrl}/ui/`, keys.viewer);
    expect(await text('#whoami-name')).toBe('API key "viewer automation"');
    expect(await text('#whoami-role')).toBe('viewer');
    await waitText('#routines-body', 'Triage alerts');
    await waitText('#accounts-body', 'ops@example.com');
    expect(await visible('#account-form')).toBe(false);
    expect(await text('#account-form-role')).toBe('Connecting an account needs the admin role; you are a viewer.');
    expect(await visible('#routine-form')).toBe(false);
    expect(await text('#routine-form-role')).toBe('Creating a routine needs the admin role; you are a viewer.');
    expect(await visible('#api-keys-admin')).toBe(false);
    expect(await text('#api-keys-role')).toBe('Managing API keys needs the admin role; you are a viewer.');
    expect(await visible('#audit-body')).toBe(true);
    expect(await visible('#audit-role')).toBe(false);
    await shot('roles-01-viewer-list');

    await page.click('#routines-body a:has-text("Triage alerts")');
    await page.waitForURL(configUrl());
    await waitText('#webhook-state', 'Enabled');
    expect(await visible('#webhook-actions')).toBe(false);
    expect(await visible('#rotate')).toBe(false);
    expect(await text('#webhook-role-note')).toBe(
      'Rotating the secret or disabling the webhook needs the operator role; you are a viewer.',
    );
    expect(await visible('#deliveries')).toBe(true);
    await shot('roles-02-viewer-config');
    // The page asked only for what a viewer may read.
    expect(refused).toEqual([]);
  });

  it("a 403 insufficient_role (a control shown against the role) shows the server's detail in place, and changes nothing", async () => {
    await page.evaluate(() => {
      (document.getElementById('webhook-actions') as { hidden: boolean }).hidden = false;
    });
    await page.click('#rotate');
    await page.click('#confirm-ok');
    await waitText('#action-error', 'Not allowed for your role (needs the operator role): webhook.rotate needs the role operator;');
    expect(await text('#action-error')).toContain('viewer automation has viewer');
    expect(await visible('#secret-panel')).toBe(false);
    expect(refused).toHaveLength(1);
    refused.length = 0;
    // The secret was not rotated: the one issued at enable still works.
    expect((await server.deliver(webhookId, secret)).status).toBe(202);
  });

  it('an operator key: rotates, but accounts, routines and API keys stay hidden with why', async () => {
    await signIn(configUrl(), keys.operator);
    expect(await text('#whoami-name')).toBe('API key "operator automation"');
    expect(await text('#whoami-role')).toBe('operator');
    await waitText('#webhook-state', 'Enabled');
    expect(await visible('#webhook-role-note')).toBe(false);
    await page.click('#rotate');
    await page.click('#confirm-ok');
    await page.locator('#secret-panel').waitFor();
    const rotated = await page.inputValue('#secret-value');
    expect(rotated).toMatch(/^whsec_/);
    expect((await server.deliver(webhookId, rotated)).status).toBe(202);
    await page.click('#dismiss-secret');

    await page.getByRole('link', { name: 'All routines' }).click();
    await waitText('#routines-body', 'Triage alerts');
    expect(await text('#account-form-role')).toBe('Connecting an account needs the admin role; you are an operator.');
    expect(await text('#routine-form-role')).toBe('Creating a routine needs the admin role; you are an operator.');
    expect(await text('#api-keys-role')).toBe('Managing API keys needs the admin role; you are an operator.');
    expect(await visible('#api-keys-admin')).toBe(false);
    expect(refused).toEqual([]);
    await shot('roles-03-operator-list');
  });

  it('an admin key: every form, no note, and the API keys listed', async () => {
    await signIn(`${server.baseUrl}/ui/`, keys.admin);
    expect(await text('#whoami-name')).toBe('API key "admin automation"');
    expect(await text('#whoami-role')).toBe('admin');
    await page.locator('#api-keys-table').waitFor();
    for (const form of ['#account-form', '#routine-form', '#api-key-form']) expect(await visible(form)).toBe(true);
    for (const note of ['#account-form-role', '#routine-form-role', '#api-keys-role', '#audit-role'])
      expect(await visible(note)).toBe(false);
    const rows = await page
      .locator('#api-keys-body tr')
      .evaluateAll((list) => list.map((row) => [...row.querySelectorAll('th, td')].slice(0, 3).map((cell) => cell.textContent)));
    // Newest first.
    expect(rows).toEqual([
      ['admin automation', 'admin', 'Active'],
      ['operator automation', 'operator', 'Active'],
      ['viewer automation', 'viewer', 'Active'],
    ]);
    expect(refused).toEqual([]);
  });

  let issuedKey = '';

  it('issues a key from the page: shown once with a copy button, it works with its role, and is gone once hidden', async () => {
    const expiry = `${new Date().getFullYear() + 1}-06-30`;
    await page.fill('#api-key-name', 'deploy pipeline');
    await page.selectOption('#api-key-role', 'operator');
    await page.fill('#api-key-expires', expiry);
    await page.click('#api-key-submit');
    await page.locator('#issued-key').waitFor();
    expect(await text('#issued-key-title')).toBe('Copy the key now: it will not be shown again');
    expect(await text('#issued-key-name')).toBe('deploy pipeline (operator)');
    issuedKey = await page.inputValue('#issued-key-value');
    expect(issuedKey).toMatch(/^wtk_/);
    await page.click('#copy-key');
    await page.waitForFunction((value) => navigator.clipboard.readText().then((copied) => copied === value), issuedKey);
    await shot('keys-01-issued-shown-once');

    const me = await server.admin('GET', '/admin/me', undefined, issuedKey);
    expect(me.status).toBe(200);
    expect(me.json).toMatchObject({ actor: { kind: 'api_key', display: 'deploy pipeline' }, role: 'operator' });

    const row = page.locator('#api-keys-body tr', { hasText: 'deploy pipeline' });
    await row.waitFor();
    expect((await row.locator('th, td').allTextContents()).slice(1, 3)).toEqual(['operator', 'Active']);
    // Expires at the end of the chosen day, local time.
    const expires = (await row.locator('td:nth-child(5) time').getAttribute('datetime')) ?? '';
    const listed = (await server.adminOk('GET', '/admin/api-keys', undefined, 200)).api_keys.find(
      (key: { name: string }) => key.name === 'deploy pipeline',
    );
    expect(expires).toBe(listed.expires_at);
    expect(await page.evaluate((iso) => new Date(iso).toTimeString().slice(0, 8), expires)).toBe('23:59:59');

    // Never in storage; gone from the page once hidden, and after a reload.
    const stored = await page.evaluate(() => {
      const values: string[] = [];
      for (let i = 0; i < sessionStorage.length; i += 1) values.push(sessionStorage.getItem(sessionStorage.key(i) as string) ?? '');
      return { values, local: localStorage.length };
    });
    expect(stored).toEqual({ values: [keys.admin], local: 0 });
    await page.click('#dismiss-key');
    expect(await visible('#issued-key')).toBe(false);
    expect(await page.inputValue('#issued-key-value')).toBe('');
    await page.reload();
    await page.locator('#api-keys-table').waitFor();
    expect(await page.content()).not.toContain(issuedKey);
  });

  it('revokes a key after a confirmation: Cancel keeps it, Revoke refuses it at once', async () => {
    const row = page.locator('#api-keys-body tr', { hasText: 'deploy pipeline' });
    await row.locator('button', { hasText: 'Revoke…' }).click();
    await page.locator('#confirm-dialog').waitFor();
    expect(await text('#confirm-title')).toBe('Revoke the API key "deploy pipeline"?');
    await shot('keys-02-revoke-confirmation');
    await page.click('#confirm-cancel');
    expect(await row.locator('td:nth-child(3)').textContent()).toBe('Active');
    expect((await server.admin('GET', '/admin/me', undefined, issuedKey)).status).toBe(200);

    await row.locator('button', { hasText: 'Revoke…' }).click();
    await page.click('#confirm-ok');
    await waitText('#api-keys-body tr:has-text("deploy pipeline") td:nth-child(3)', 'Revoked');
    expect(await row.locator('button').count()).toBe(0);
    await waitText('#status', 'API key deploy pipeline revoked.');
    expect((await server.admin('GET', '/admin/me', undefined, issuedKey)).status).toBe(401);
    // The bootstrap token still signs in as an admin, with the same panel.
    expect((await server.admin('GET', '/admin/me', undefined, UI_ADMIN_TOKEN)).json.role).toBe('admin');
    await shot('keys-03-revoked');
  });
});
