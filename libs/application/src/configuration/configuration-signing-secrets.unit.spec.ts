import { StreamCategories, Streams, type SealedSecret, type ServiceEvent } from '@wts/contracts';
import type { RecordedEvent } from '@wts/event-store';
import { SecretUnavailableError, type SecretSealer } from '../signing/secret.sealer';
import { CONFIGURATION_PREFIXES, ConfigurationState } from './configuration.state';
import { recordedAt } from '../../../../test/support/recorded-event.fixtures';

const ROUTINE = 'rtn_AAAAAAAAAAAAAAAAAAAAAA';
const WEBHOOK = 'whk_AAAAAAAAAAAAAAAAAAAAAA';
const ACCOUNT = 'acc_AAAAAAAAAAAAAAAAAAAAAA';
const T0 = '2024-05-01T12:00:00.000Z';
const [S1, S2, S3] = ['sgs_111111111111111111111A', 'sgs_222222222222222222222A', 'sgs_333333333333333333333A'];

/**
 * A reversible stand-in for the AES-GCM sealer (that adapter has its own tests): the "ciphertext" is
 * the plaintext in base64url and the tag is the binding, so a wrong binding or an unknown key fails
 * as the real one does.
 */
class ReversibleSealer implements SecretSealer {
  readonly currentKeyId = 'k-current';
  holdsKey(keyId: string): boolean {
    return keyId === this.currentKeyId;
  }
  seal(plaintext: string, binding: string): SealedSecret {
    return { keyId: this.currentKeyId, iv: 'iv', ciphertext: Buffer.from(plaintext).toString('base64url'), tag: binding };
  }
  open(sealed: SealedSecret, binding: string): string {
    if (!this.holdsKey(sealed.keyId)) throw new SecretUnavailableError(sealed.keyId, 'unknown_key');
    if (sealed.tag !== binding) throw new SecretUnavailableError(sealed.keyId, 'not_authentic');
    return Buffer.from(sealed.ciphertext, 'base64url').toString();
  }
}

const sealer = new ReversibleSealer();
let position = 0;
const revisions = new Map<string, number>();
function next(streamId: string, event: ServiceEvent): RecordedEvent {
  position += 1;
  const revision = (revisions.get(streamId) ?? -1) + 1;
  revisions.set(streamId, revision);
  return recordedAt(position, streamId, revision, event, T0);
}

const sealedEvent = (secretId: string, plaintext: string, keyId = sealer.currentKeyId): RecordedEvent =>
  next(Streams.signingSecret(WEBHOOK), {
    type: 'SigningSecretSealed',
    data: { webhookId: WEBHOOK, secretId, sealed: { ...sealer.seal(plaintext, `${WEBHOOK}/${secretId}`), keyId }, sealedAt: T0 },
  });
const enabledEvent = (secretId: string): RecordedEvent =>
  next(Streams.webhook(WEBHOOK), {
    type: 'WebhookEnabled',
    data: {
      webhookId: WEBHOOK,
      routineId: ROUTINE,
      verification: { scheme: 'github', secretId },
      defaultAccount: { accountId: ACCOUNT, email: 'ops@example.com' },
      accountOverrideAllowed: false,
      enabledAt: T0,
    },
  });
const rotatedEvent = (secretId: string): RecordedEvent =>
  next(Streams.webhook(WEBHOOK), {
    type: 'SecretRotated',
    data: { webhookId: WEBHOOK, verification: { scheme: 'github', secretId }, rotatedAt: T0 },
  });

describe('ConfigurationState — signing secrets', () => {
  beforeEach(() => revisions.clear());

  it('folds the signing_secret category only when it can open secrets (the ingress), never in the dispatcher', () => {
    expect(new ConfigurationState().prefixes).toEqual(CONFIGURATION_PREFIXES);
    expect(new ConfigurationState().prefixes).not.toContain(StreamCategories.signingSecret);
    expect(new ConfigurationState({ secrets: sealer }).prefixes).toContain(StreamCategories.signingSecret);
    expect(new ConfigurationState().apply(sealedEvent(S1, 'secret one is long'))).toBe('ignored');
  });

  it('given a sealed secret and the webhook naming it, then the webhook is signed and its secret opens', () => {
    const state = new ConfigurationState({ secrets: sealer });
    state.apply(sealedEvent(S1, 'secret one is long'));
    state.apply(enabledEvent(S1));
    expect(state.webhook(WEBHOOK)).toMatchObject({ scheme: 'github', signingSecretId: S1, secretDigest: null });
    expect(state.signingSecret(WEBHOOK, S1)).toBe('secret one is long');
  });

  it('given a rotation, then only the new secret is kept: the old one is gone from memory at once', () => {
    const state = new ConfigurationState({ secrets: sealer });
    state.apply(sealedEvent(S1, 'secret one is long'));
    state.apply(enabledEvent(S1));
    state.apply(sealedEvent(S2, 'secret two is long'));
    expect(state.signingSecret(WEBHOOK, S1)).toBe('secret one is long');
    state.apply(rotatedEvent(S2));
    expect(state.signingSecret(WEBHOOK, S2)).toBe('secret two is long');
    expect(state.signingSecret(WEBHOOK, S1)).toBeUndefined();
    expect(state.hasSigningSecretFolded(WEBHOOK, S1)).toBe(false);
  });

  it('keeps at most the named secret and the newest sealed (sealed secrets of failed enables do not pile up)', () => {
    const state = new ConfigurationState({ secrets: sealer });
    state.apply(sealedEvent(S1, 'secret one is long'));
    state.apply(enabledEvent(S1));
    state.apply(sealedEvent(S2, 'an orphan, never named'));
    state.apply(sealedEvent(S3, 'another orphan'));
    expect(state.signingSecret(WEBHOOK, S1)).toBe('secret one is long');
    expect(state.hasSigningSecretFolded(WEBHOOK, S2)).toBe(false);
    expect(state.signingSecret(WEBHOOK, S3)).toBe('another orphan');
  });

  it('a webhook event folded before its secret (read ahead): the secret is missing until its stream is read', () => {
    const state = new ConfigurationState({ secrets: sealer });
    const sealed = sealedEvent(S1, 'secret one is long');
    state.apply(enabledEvent(S1));
    expect(state.hasSigningSecretFolded(WEBHOOK, S1)).toBe(false);
    state.apply(sealed);
    expect(state.signingSecret(WEBHOOK, S1)).toBe('secret one is long');
  });

  it('a reseal under another key replaces the sealed form and never makes an old secret current', () => {
    const state = new ConfigurationState({ secrets: sealer });
    state.apply(sealedEvent(S1, 'secret one is long'));
    state.apply(enabledEvent(S1));
    state.apply(
      next(Streams.signingSecret(WEBHOOK), {
        type: 'SigningSecretResealed',
        data: { webhookId: WEBHOOK, secretId: S1, sealed: sealer.seal('secret one is long', `${WEBHOOK}/${S1}`), resealedAt: T0 },
      }),
    );
    expect(state.signingSecret(WEBHOOK, S1)).toBe('secret one is long');
    state.apply(
      next(Streams.signingSecret(WEBHOOK), {
        type: 'SigningSecretResealed',
        data: { webhookId: WEBHOOK, secretId: S3, sealed: sealer.seal('pruned long ago', `${WEBHOOK}/${S3}`), resealedAt: T0 },
      }),
    );
    expect(state.hasSigningSecretFolded(WEBHOOK, S3)).toBe(false);
  });

  it('a secret that cannot be opened (its key is not configured) is reported and stays unusable', () => {
    const unavailable: [string, unknown][] = [];
    const state = new ConfigurationState({
      secrets: sealer,
      onSecretUnavailable: (webhookId, error) => unavailable.push([webhookId, error]),
    });
    state.apply(sealedEvent(S1, 'secret one is long', 'k-retired'));
    state.apply(enabledEvent(S1));
    expect(state.hasSigningSecretFolded(WEBHOOK, S1)).toBe(true);
    expect(state.signingSecret(WEBHOOK, S1)).toBeUndefined();
    expect(unavailable).toHaveLength(1);
    expect(unavailable[0]![0]).toBe(WEBHOOK);
    expect(String(unavailable[0]![1])).toMatch(/k-retired/);
    expect(String(unavailable[0]![1])).not.toMatch(/secret one/);
  });

  it('names a decoy webhook per signed scheme, for unknown ids to look up as a known id is (docs/timing.md)', () => {
    const state = new ConfigurationState({ secrets: sealer });
    expect(state.signedDecoy('github')).toBeUndefined();
    state.apply(sealedEvent(S1, 'secret one is long'));
    state.apply(enabledEvent(S1));
    expect(state.signedDecoy('github')?.webhookId).toBe(WEBHOOK);
    expect(state.signedDecoy('stripe')).toBeUndefined();
    expect(state.signedDecoy('standard_webhooks')).toBeUndefined();
    // Disabled, it is still a webhook of the scheme with a secret to look up.
    state.apply(next(Streams.webhook(WEBHOOK), { type: 'WebhookDisabled', data: { webhookId: WEBHOOK, disabledAt: T0 } }));
    expect(state.signedDecoy('github')?.status).toBe('disabled');
    // Re-enabled with another scheme: no longer github's decoy, now stripe's.
    state.apply(
      next(Streams.webhook(WEBHOOK), {
        type: 'WebhookEnabled',
        data: {
          webhookId: WEBHOOK,
          routineId: ROUTINE,
          verification: { scheme: 'stripe', secretId: S2 },
          defaultAccount: { accountId: ACCOUNT, email: 'ops@example.com' },
          accountOverrideAllowed: false,
          enabledAt: T0,
        },
      }),
    );
    expect(state.signedDecoy('stripe')?.webhookId).toBe(WEBHOOK);
    expect(state.signedDecoy('github')?.scheme).toBe('stripe');
  });
});
