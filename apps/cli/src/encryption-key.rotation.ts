import { SecretUnavailableError, asEvent, toAppend, type CausationContext, type SecretSealer } from '@wts/application';
import { StreamCategories, Streams, isWebhookEventType, type SigningSecretResealed, type WebhookEvent } from '@wts/contracts';
import { evolveWebhook, initialWebhookState, signingSecretBinding, type WebhookState } from '@wts/domain';
import type { EventStore, GlobalPosition } from '@wts/event-store';
import { CliFailure } from './cli.errors';
import { foldSigningSecretStreams, type SealedSigningSecret, type SigningSecretStream } from './signing-secrets.fold';

const BATCH = 1000;
/** Appends refused because the stream moved on (an admin rotated the webhook meanwhile) before giving up. */
const MAX_ATTEMPTS = 5;

/** A secret left sealed as it was: its key is not in the ring, or it fails its authentication check. */
export interface UnopenableSecret {
  readonly webhookId: string;
  readonly secretId: string;
  readonly keyId: string;
  readonly reason: SecretUnavailableError['reason'];
  /**
   * No webhook verifies with it: its webhook names another secret (rotated since) or is disabled
   * (enabling again makes a new secret). A secret whose webhook names none is taken as in use.
   */
  readonly retired: boolean;
}

export interface RotationOutcome {
  readonly streams: number;
  readonly secrets: number;
  /** Resealed under the current key (a dry run: would be). */
  readonly resealed: number;
  readonly alreadyCurrent: number;
  readonly unopenable: readonly UnopenableSecret[];
  /** How many secrets each key id sealed when the run started. */
  readonly keyIdsBefore: ReadonlyMap<string, number>;
  /** How many secrets each key id seals once the run is done (a dry run: would seal). */
  readonly keyIdsInUse: ReadonlyMap<string, number>;
  /** Stopped (SIGINT) before every stream was done. */
  readonly interrupted: boolean;
}

export interface RotationOptions {
  /** Undefined: a dry run, nothing is written. Else the causation (and actor) of what is written. */
  readonly causation: CausationContext | undefined;
  readonly now: () => string;
  readonly newId: () => string;
  readonly signal: AbortSignal;
}

interface StreamPlan {
  readonly events: SigningSecretResealed[];
  readonly alreadyCurrent: number;
  readonly unopenable: UnopenableSecret[];
  /** The key id of each secret before, and once this plan is written. */
  readonly keyIdsBefore: string[];
  readonly keyIds: string[];
}

/**
 * Reseals every signing secret not sealed under the sealer's current key: reads the
 * `signing_secret-` streams, folds the latest sealed form of each secret, opens each one with the
 * key ring and appends a SigningSecretResealed under the current key to its stream, expecting the
 * revision it folded — a stream that moved on meanwhile (an admin rotated that webhook) is read
 * again and its plan made anew. The plaintext lives only in this process's memory, between open
 * and seal.
 */
export async function rotateEncryptionKey(store: EventStore, sealer: SecretSealer, options: RotationOptions): Promise<RotationOutcome> {
  const streams = await readSigningSecretStreams(store);
  const before = new Map<string, number>();
  const inUse = new Map<string, number>();
  const count = (counts: Map<string, number>, keyIds: readonly string[]): void => {
    for (const keyId of keyIds) counts.set(keyId, (counts.get(keyId) ?? 0) + 1);
  };
  const unopenable: UnopenableSecret[] = [];
  let resealed = 0;
  let alreadyCurrent = 0;
  let secrets = 0;
  let interrupted = false;
  for (const folded of streams.values()) {
    if (options.signal.aborted) {
      interrupted = true;
      break;
    }
    const plan = await resealStream(store, sealer, folded, options);
    resealed += plan.events.length;
    alreadyCurrent += plan.alreadyCurrent;
    unopenable.push(...plan.unopenable);
    secrets += plan.keyIds.length;
    count(before, plan.keyIdsBefore);
    count(inUse, plan.keyIds);
  }
  return { streams: streams.size, secrets, resealed, alreadyCurrent, unopenable, keyIdsBefore: before, keyIdsInUse: inUse, interrupted };
}

/** Every `signing_secret-` stream, folded, in the order of their first events. */
async function readSigningSecretStreams(store: EventStore): Promise<Map<string, SigningSecretStream>> {
  const streams = new Map<string, SigningSecretStream>();
  let after: GlobalPosition | undefined;
  for (;;) {
    const batch = await store.readAll({ after, limit: BATCH, filter: { streamPrefixes: [StreamCategories.signingSecret] } });
    if (batch.length === 0) return streams;
    foldSigningSecretStreams(
      batch.filter((event) => event.streamId.startsWith(StreamCategories.signingSecret)),
      streams,
    );
    after = batch[batch.length - 1].position;
  }
}

async function resealStream(
  store: EventStore,
  sealer: SecretSealer,
  folded: SigningSecretStream,
  options: RotationOptions,
): Promise<StreamPlan> {
  let stream = folded;
  for (let attempt = 1; ; attempt += 1) {
    const webhook = await webhookOf(store, stream);
    const plan = planStream(sealer, stream, webhook, options);
    if (options.causation === undefined || plan.events.length === 0) return plan;
    const result = await store.append(stream.streamId, toAppend(plan.events, options.causation, options.newId), stream.revision);
    if (result.kind === 'appended') return plan;
    if (attempt === MAX_ATTEMPTS) {
      throw new CliFailure(
        `${stream.streamId} changed ${MAX_ATTEMPTS} times while its secrets were resealed (its webhook is being rotated?): run rotate-encryption-key again`,
      );
    }
    const again = foldSigningSecretStreams(await store.readStream(stream.streamId)).get(stream.streamId);
    if (again === undefined) throw new CliFailure(`${stream.streamId} was read, then could not be read again`);
    stream = again;
  }
}

/** The webhook whose secrets a `signing_secret-<webhook id>` stream holds, folded from its own stream. */
async function webhookOf(store: EventStore, stream: SigningSecretStream): Promise<WebhookState> {
  const webhookId = stream.streamId.slice(StreamCategories.signingSecret.length);
  const events = await store.readStream(Streams.webhook(webhookId));
  return events
    .filter((event) => isWebhookEventType(event.type))
    .reduce((state, event) => evolveWebhook(state, asEvent<WebhookEvent>(event)), initialWebhookState());
}

/** Whether no webhook verifies with this secret any more (see UnopenableSecret.retired). */
function isRetired(webhook: WebhookState, secretId: string): boolean {
  if (webhook.status === 'not_configured') return false;
  return webhook.status === 'disabled' || webhook.signingSecretId !== secretId;
}

function planStream(sealer: SecretSealer, stream: SigningSecretStream, webhook: WebhookState, options: RotationOptions): StreamPlan {
  const events: SigningSecretResealed[] = [];
  const unopenable: UnopenableSecret[] = [];
  const keyIds: string[] = [];
  const keyIdsBefore: string[] = [];
  let alreadyCurrent = 0;
  for (const secret of stream.secrets.values()) {
    keyIdsBefore.push(secret.sealed.keyId);
    if (secret.sealed.keyId === sealer.currentKeyId) {
      alreadyCurrent += 1;
      keyIds.push(secret.sealed.keyId);
      continue;
    }
    const resealed = reseal(sealer, secret, options);
    if (resealed instanceof SecretUnavailableError) {
      const { webhookId, secretId } = secret;
      unopenable.push({ webhookId, secretId, keyId: secret.sealed.keyId, reason: resealed.reason, retired: isRetired(webhook, secretId) });
      keyIds.push(secret.sealed.keyId);
      continue;
    }
    events.push(resealed);
    keyIds.push(sealer.currentKeyId);
  }
  return { events, alreadyCurrent, unopenable, keyIdsBefore, keyIds };
}

/** The secret sealed again under the current key (a dry run only checks that it opens), or why it cannot be opened. */
function reseal(
  sealer: SecretSealer,
  secret: SealedSigningSecret,
  options: RotationOptions,
): SigningSecretResealed | SecretUnavailableError {
  const binding = signingSecretBinding(secret.webhookId, secret.secretId);
  let plaintext: string;
  try {
    plaintext = sealer.open(secret.sealed, binding);
  } catch (error) {
    if (error instanceof SecretUnavailableError) return error;
    throw error;
  }
  const sealed = options.causation === undefined ? secret.sealed : sealer.seal(plaintext, binding);
  return {
    type: 'SigningSecretResealed',
    data: { webhookId: secret.webhookId, secretId: secret.secretId, sealed, resealedAt: options.now() },
  };
}
