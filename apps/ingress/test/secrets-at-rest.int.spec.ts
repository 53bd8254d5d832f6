/**
 * DESIGN guarantee 4 and "Events and streams": a secret exists in plaintext only in the answers
 * to enable and rotate; events carry a digest only. Checked on the raw SQLite bytes (main file,
 * WAL and shared memory) and on every event read back through the store.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { useIngressTestApp } from '../../../test/support/ingress-test-app';
import type { WebhookFixture } from '../../../test/support/ingress-admin.client';

const sha256Hex = (value: string): string => createHash('sha256').update(value, 'utf8').digest('hex');

describe('secrets at rest', () => {
  const t = useIngressTestApp();
  let hook: WebhookFixture;
  const secrets: string[] = [];

  beforeAll(async () => {
    hook = await t.setupWebhook();
    secrets.push(hook.secret);
    const rotated = await t.adminOk('POST', `/admin/routines/${hook.routineId}/webhook/rotate`, undefined, 200);
    secrets.push(rotated.secret);
    // Deliveries carry the secret in their Authorization header: it must not be recorded either.
    expect((await t.deliver({ webhookId: hook.webhookId, secret: rotated.secret })).status).toBe(202);
    expect((await t.deliver(hook)).status).toBe(404);
    await t.adminOk('POST', `/admin/routines/${hook.routineId}/webhook/disable`, undefined, 200);
    const again = await t.enableWebhook(hook.routineId, hook.account.email);
    secrets.push(again.secret);
    expect((await t.deliver({ webhookId: hook.webhookId, secret: again.secret })).status).toBe(202);
    expect(new Set(secrets).size).toBe(3);
  });

  function storeBytes(): Buffer {
    const files = ['', '-wal', '-shm'].map((suffix) => t.storeFile + suffix).filter((file) => existsSync(file));
    expect(files.length).toBeGreaterThan(0);
    return Buffer.concat(files.map((file) => readFileSync(file)));
  }

  it('no secret (nor its random part) is in the SQLite files; each digest is', () => {
    const bytes = storeBytes();
    for (const secret of secrets) {
      expect(bytes.includes(Buffer.from(secret))).toBe(false);
      expect(bytes.includes(Buffer.from(secret.slice('whsec_'.length)))).toBe(false);
      expect(bytes.includes(Buffer.from(secret, 'utf16le'))).toBe(false);
      expect(bytes.includes(Buffer.from(sha256Hex(secret)))).toBe(true);
    }
  });

  it('no secret is in any event read back from the store (data or metadata); each digest is', async () => {
    const events = await t.allEvents();
    expect(events.length).toBeGreaterThan(0);
    const text = JSON.stringify(events, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value));
    for (const secret of secrets) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(secret.slice('whsec_'.length));
      expect(text).toContain(sha256Hex(secret));
    }
    expect(text).not.toContain('whsec_');
  });

  it('no admin read answers with a secret', async () => {
    const reads = [
      await t.admin('GET', `/admin/routines/${hook.routineId}/webhook`),
      await t.admin('GET', `/admin/routines/${hook.routineId}`),
      await t.admin('GET', `/admin/routines/${hook.routineId}/webhook/deliveries`),
      await t.admin('GET', `/admin/routines/${hook.routineId}/runs`),
      await t.admin('GET', '/admin/accounts'),
    ];
    for (const read of reads) {
      expect(read.status).toBe(200);
      expect(read.text).not.toContain('whsec_');
      for (const secret of secrets) expect(read.text).not.toContain(secret.slice('whsec_'.length));
    }
  });
});
