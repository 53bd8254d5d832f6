/**
 * Signed senders' secrets at rest, through the admin API of an ingress as the service wires it:
 * the key ring of its DATA_DIR (the embedded default's key file), a secret sealed under it on the
 * webhook's `signing_secret-` stream, opening to what the operator was shown or pasted.
 */
import type { SealedSecret, SigningSecretSealed } from '@wts/contracts';
import { signingSecretBinding } from '@wts/domain';
import { SECRETS_KEY_FILE, openSecretSealer } from '@wts/platform';
import { randomBytes } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { useIngressTestApp } from '../../../test/support/ingress-test-app';

describe('signing secrets sealed by the ingress', () => {
  const t = useIngressTestApp();

  async function enableSigned(verification: { scheme: string; secret?: string }): Promise<{ webhookId: string; secret: string | null }> {
    const { webhookId, answer } = await t.setupSignedWebhook(verification);
    return { webhookId, secret: (answer.secret as string | null) ?? null };
  }

  async function sealedSecrets(webhookId: string): Promise<SigningSecretSealed['data'][]> {
    const events = await t.store.readStream(`signing_secret-${webhookId}`);
    return events.filter((event) => event.type === 'SigningSecretSealed').map((event) => event.data as SigningSecretSealed['data']);
  }

  it('makes its DATA_DIR key file at start (mode 0600) and seals a made Standard Webhooks secret under it', async () => {
    const keyFile = join(t.dataDir, SECRETS_KEY_FILE);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    const { webhookId, secret } = await enableSigned({ scheme: 'standard_webhooks' });
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    const [sealed] = await sealedSecrets(webhookId);
    // Another process opening the same DATA_DIR (the CLI) holds the same key and opens it.
    const sealer = openSecretSealer(t.config)!;
    expect(sealed.sealed.keyId).toBe(sealer.currentKeyId);
    expect(sealer.open(sealed.sealed, signingSecretBinding(webhookId, sealed.secretId))).toBe(secret);
    expect(
      JSON.stringify(await t.allEvents(), (_key, value: unknown) => (typeof value === 'bigint' ? String(value) : value)),
    ).not.toContain(secret!);
    expect(readFileSync(keyFile, 'utf8')).not.toContain(secret!);
  });

  it('seals a pasted GitHub secret, bound to its webhook: it does not open for another one', async () => {
    const pasted = randomBytes(24).toString('hex');
    const { webhookId, secret } = await enableSigned({ scheme: 'github', secret: pasted });
    expect(secret).toBeNull();
    const [{ secretId, sealed }] = await sealedSecrets(webhookId);
    const sealer = openSecretSealer(t.config)!;
    expect(sealer.open(sealed, signingSecretBinding(webhookId, secretId))).toBe(pasted);
    const moved: SealedSecret = sealed;
    expect(() => sealer.open(moved, signingSecretBinding('whk_SomeOtherWebhook0000000', secretId))).toThrow(
      'failed its authentication check',
    );
  });
});
