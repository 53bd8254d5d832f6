import type { SigningSecretEvent } from '@wts/contracts';
import { signingSecretBinding, type WebhookState } from '@wts/domain';
import type { RecordedEvent } from '@wts/event-store';
import { asEvent } from '../shared/event-envelope';
import type { SecretSealer } from '../signing/secret.sealer';
import type { Evolve } from './folded-streams.state';

/**
 * A webhook's signing secrets as opened: at most the one its webhook names and the newest sealed
 * (sealed before the webhook event that will name it). Null: sealed, but it could not be opened.
 */
export interface SigningSecrets {
  readonly opened: Map<string, string | null>;
  newest: string | undefined;
}

/** A signing secret that cannot be opened (its key is not configured): its webhook answers 404 until it can. */
export interface SigningSecretsOptions {
  readonly onSecretUnavailable?: (webhookId: string, error: unknown) => void;
}

/** Folds a webhook's `signing_secret-` stream: each sealed secret opened with `sealer` as it comes. */
export function signingSecretsEvolver(sealer: SecretSealer, options: SigningSecretsOptions): Evolve<SigningSecrets> {
  return (current, recorded, webhookId) => openSigningSecret(current, recorded, webhookId, sealer, options);
}

function openSigningSecret(
  current: SigningSecrets | undefined,
  recorded: RecordedEvent,
  webhookId: string,
  sealer: SecretSealer,
  options: SigningSecretsOptions,
): SigningSecrets {
  const secrets: SigningSecrets = current ?? { opened: new Map(), newest: undefined };
  const event = asEvent<SigningSecretEvent>(recorded);
  const { secretId, sealed } = event.data;
  let opened: string | null;
  try {
    opened = sealer.open(sealed, signingSecretBinding(webhookId, secretId));
  } catch (error) {
    opened = null;
    options.onSecretUnavailable?.(webhookId, error);
  }
  // A reseal replaces the sealed form of a secret already folded; it never makes an old one current.
  if (event.type === 'SigningSecretSealed' || secrets.opened.has(secretId)) secrets.opened.set(secretId, opened);
  if (event.type === 'SigningSecretSealed') secrets.newest = secretId;
  return secrets;
}

/** Keeps only the secret the webhook names and the newest sealed: memory stays one or two secrets per webhook. */
export function pruneSigningSecrets(secrets: SigningSecrets | undefined, webhook: WebhookState | undefined): void {
  if (!secrets) return;
  const named = webhook && webhook.status !== 'not_configured' ? webhook.signingSecretId : null;
  for (const secretId of [...secrets.opened.keys()]) {
    if (secretId !== named && secretId !== secrets.newest) secrets.opened.delete(secretId);
  }
}
