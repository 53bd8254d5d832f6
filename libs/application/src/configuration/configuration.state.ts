import {
  ACCOUNT_CATALOG_STREAM,
  API_KEY_CATALOG_STREAM,
  StreamCategories,
  type SignedScheme,
  type AccountCatalogEvent,
  type ApiKeyEvent,
  type RoutineEvent,
  type WebhookEvent,
  type WebhookIdAssigned,
} from '@wts/contracts';
import {
  routineSnapshot,
  evolveAccountCatalog,
  evolveApiKeyCatalog,
  initialApiKeyCatalog,
  type ApiKey,
  type ApiKeyCatalog,
  evolveRoutine,
  evolveWebhook,
  initialAccountCatalog,
  initialWebhookState,
  type AccountCatalog,
  type ConfiguredWebhook,
  type RoutineState,
  type WebhookState,
} from '@wts/domain';
import { comparePositions, type GlobalPosition, type RecordedEvent } from '@wts/event-store';
import { asEvent } from '../shared/event-envelope';
import type { SecretSealer } from '../signing/secret.sealer';
import { FoldedStreams, ordering, type ApplyOutcome, type Evolve, type Folded } from './folded-streams.state';
import { pruneSigningSecrets, signingSecretsEvolver, type SigningSecrets } from './signing-secrets.state';

export type { ApplyOutcome } from './folded-streams.state';

/** A hold's span in $all: from where it began to where it was released (no `before` while it is held). */
export interface HoldSpan {
  readonly after: GlobalPosition;
  readonly before?: GlobalPosition;
}

/** The stream categories decisions need: nothing else is ever folded into this state. */
export const CONFIGURATION_PREFIXES: readonly string[] = [
  StreamCategories.account,
  StreamCategories.routine,
  StreamCategories.webhook,
  StreamCategories.webhookSlot,
  StreamCategories.apiKey,
];

export interface ConfigurationStateOptions {
  /**
   * Opens the sealed signing secrets of signed webhooks: given, this state folds the
   * `signing_secret-` category too (the ingress, which verifies signatures); absent, it never reads it.
   */
  readonly secrets?: SecretSealer | undefined;
  /** A signing secret that cannot be opened (its key is not configured): its webhook answers 404 until it can. */
  readonly onSecretUnavailable?: (webhookId: string, error: unknown) => void;
}

/** A routine as folded, with where it was created in $all and the size of its snapshot. */
interface RoutineEntry {
  readonly state: RoutineState | null;
  readonly createdAt: GlobalPosition;
  readonly snapshotBytes: number;
}

const evolveRoutineEntry: Evolve<RoutineEntry> = (current, recorded) => {
  const state = evolveRoutine(current?.state ?? null, asEvent<RoutineEvent>(recorded));
  const snapshotBytes = state === null ? 0 : Buffer.byteLength(JSON.stringify(routineSnapshot(state)));
  return { state, createdAt: current?.createdAt ?? recorded.position, snapshotBytes };
};

const evolveWebhookState: Evolve<WebhookState> = (current, recorded) =>
  evolveWebhook(current ?? initialWebhookState(), asEvent<WebhookEvent>(recorded));

// Claimed with "stream must not exist": the first event is the claim, for good.
const evolveSlot: Evolve<string> = (current, recorded) => current ?? asEvent<WebhookIdAssigned>(recorded).data.webhookId;

/**
 * What a decision needs, and nothing that grows with traffic: the account catalog, routines and
 * webhooks, each folded from its own stream. Every aggregate lives in one stream, so each is kept
 * by its own revision: events may come from the subscription or from a direct read of the stream,
 * in any interleaving, and each is folded exactly once, in revision order.
 */
export class ConfigurationState {
  private catalog: Folded<AccountCatalog> = { state: initialAccountCatalog(), revision: -1n };
  private apiKeyCatalog: Folded<ApiKeyCatalog> = { state: initialApiKeyCatalog(), revision: -1n };
  /** API keys by the digest of the key: the admin API finds a presented key's entry in one look. */
  private readonly apiKeysByDigest = new Map<string, string>();
  private readonly routines = new FoldedStreams<RoutineEntry>();
  private readonly webhooks = new FoldedStreams<WebhookState>();
  /** The claim of each routine's one webhook id (webhook_slot-<routine id>). */
  private readonly slots = new FoldedStreams<string>();
  /** Stores written before slots existed: a routine's webhook is the first one enabled for it. */
  private readonly firstEnabled = new Map<string, string>();
  private readonly signingSecrets = new FoldedStreams<SigningSecrets>();
  /** Opens each sealed secret as it is folded: only when this state folds the `signing_secret-` category. */
  private readonly evolveSigningSecrets: Evolve<SigningSecrets> | undefined;
  /**
   * Where each webhook's latest hold began in $all (the WebhookHeld that found it not held), kept
   * after its release: its held deliveries are the ones after it.
   */
  private readonly holdStarts = new Map<string, GlobalPosition>();
  /** Where each webhook's latest hold was released (none while it is held). */
  private readonly holdEnds = new Map<string, GlobalPosition>();
  /** Per signed scheme, a webhook configured with it: the decoy an unknown id's signed request is looked up on. */
  private readonly signedDecoys = new Map<SignedScheme, string>();
  /** The categories this state folds (the feeder's subscription filter). */
  readonly prefixes: readonly string[];

  constructor(options: ConfigurationStateOptions = {}) {
    this.prefixes = options.secrets ? [...CONFIGURATION_PREFIXES, StreamCategories.signingSecret] : CONFIGURATION_PREFIXES;
    this.evolveSigningSecrets = options.secrets ? signingSecretsEvolver(options.secrets, options) : undefined;
  }

  /** The revision folded for a stream (-1n: nothing of it). */
  revisionOf(streamId: string): bigint {
    if (streamId === ACCOUNT_CATALOG_STREAM) return this.catalog.revision;
    if (streamId === API_KEY_CATALOG_STREAM) return this.apiKeyCatalog.revision;
    if (streamId.startsWith(StreamCategories.routine)) return this.routines.revisionOf(streamId.slice(StreamCategories.routine.length));
    if (streamId.startsWith(StreamCategories.webhook)) return this.webhooks.revisionOf(streamId.slice(StreamCategories.webhook.length));
    if (streamId.startsWith(StreamCategories.webhookSlot))
      return this.slots.revisionOf(streamId.slice(StreamCategories.webhookSlot.length));
    if (streamId.startsWith(StreamCategories.signingSecret))
      return this.signingSecrets.revisionOf(streamId.slice(StreamCategories.signingSecret.length));
    return -1n;
  }

  apply(recorded: RecordedEvent): ApplyOutcome {
    const { streamId } = recorded;
    if (streamId === ACCOUNT_CATALOG_STREAM) return this.applyCatalog(recorded);
    if (streamId === API_KEY_CATALOG_STREAM) return this.applyApiKey(recorded);
    if (streamId.startsWith(StreamCategories.routine))
      return this.routines.apply(streamId.slice(StreamCategories.routine.length), recorded, evolveRoutineEntry);
    if (streamId.startsWith(StreamCategories.webhook)) return this.applyWebhook(streamId.slice(StreamCategories.webhook.length), recorded);
    if (streamId.startsWith(StreamCategories.webhookSlot))
      return this.slots.apply(streamId.slice(StreamCategories.webhookSlot.length), recorded, evolveSlot);
    if (streamId.startsWith(StreamCategories.signingSecret) && this.evolveSigningSecrets)
      return this.applySigningSecret(streamId.slice(StreamCategories.signingSecret.length), recorded, this.evolveSigningSecrets);
    return 'ignored';
  }

  accounts(): AccountCatalog {
    return this.catalog.state;
  }

  apiKeys(): ApiKeyCatalog {
    return this.apiKeyCatalog.state;
  }

  /** The API key whose key digests to `keyDigest` (hex), revoked and expired ones included. */
  apiKeyByDigest(keyDigest: string): ApiKey | undefined {
    const keyId = this.apiKeysByDigest.get(keyDigest);
    return keyId === undefined ? undefined : this.apiKeyCatalog.state.keys.get(keyId);
  }

  routine(routineId: string): RoutineState | undefined {
    return this.routines.get(routineId)?.state ?? undefined;
  }

  /** The size of the routine as a run records it (RunCreated's `routine`), in bytes of JSON. */
  routineSnapshotBytes(routineId: string): number {
    return this.routines.get(routineId)?.snapshotBytes ?? 0;
  }

  /** Every routine, the most recently created first. */
  routinesNewestFirst(): RoutineState[] {
    return [...this.routines.states()]
      .filter((entry): entry is typeof entry & { state: RoutineState } => entry.state !== null)
      .sort((a, b) => comparePositions(b.createdAt, a.createdAt))
      .map((entry) => entry.state);
  }

  webhook(webhookId: string): ConfiguredWebhook | undefined {
    const state = this.webhooks.get(webhookId);
    return state && state.status !== 'not_configured' ? state : undefined;
  }

  /**
   * A routine whose webhook was enabled here at some point, so its stream exists (the first one
   * folded; it never changes afterwards): the routine an unknown webhook id's freshness look reads in
   * place of one, so that it finds a stream where a known id finds its routine's. Undefined while
   * no webhook was ever enabled (then there is no known id to tell apart either).
   */
  decoyRoutineId(): string | undefined {
    for (const routineId of this.firstEnabled.keys()) return routineId;
    return undefined;
  }

  /** The latest hold's span in $all: from its start to its release (no `before` while it is held). */
  holdRangeOf(webhookId: string): HoldSpan | undefined {
    const after = this.holdStarts.get(webhookId);
    if (after === undefined) return undefined;
    const before = this.holdEnds.get(webhookId);
    return before === undefined ? { after } : { after, before };
  }

  /** The webhooks held now (few: an operator's incident lever), for the hold expiry. */
  heldWebhooks(): ConfiguredWebhook[] {
    const held: ConfiguredWebhook[] = [];
    for (const webhookId of this.holdStarts.keys()) {
      const webhook = this.webhook(webhookId);
      if (webhook?.hold) held.push(webhook);
    }
    return held;
  }

  /**
   * A webhook configured with `scheme` (the first one, until it is re-enabled with another scheme):
   * an unknown id's signed request does a known id's in-memory work on it — its state, its signing
   * secret — so the two cannot be told apart by that work (docs/timing.md, "Signed senders", item 2).
   * Undefined while no webhook has that scheme.
   */
  signedDecoy(scheme: SignedScheme): ConfiguredWebhook | undefined {
    const webhookId = this.signedDecoys.get(scheme);
    return webhookId === undefined ? undefined : this.webhook(webhookId);
  }

  /**
   * The signing secret a signed webhook names, opened; undefined while its sealed form is not folded
   * yet (read its stream), or when it cannot be opened (see hasSigningSecretFolded).
   */
  signingSecret(webhookId: string, secretId: string): string | undefined {
    return this.signingSecrets.get(webhookId)?.opened.get(secretId) ?? undefined;
  }

  /** Whether the secret's sealed form is folded (opened or not): false means its stream must be read. */
  hasSigningSecretFolded(webhookId: string, secretId: string): boolean {
    return this.signingSecrets.get(webhookId)?.opened.has(secretId) ?? false;
  }

  /** The id claimed for the routine's webhook, once claimed (it may not be enabled yet). */
  webhookIdOfRoutine(routineId: string): string | undefined {
    return this.slots.get(routineId) ?? this.firstEnabled.get(routineId);
  }

  webhookOfRoutine(routineId: string): ConfiguredWebhook | undefined {
    const webhookId = this.webhookIdOfRoutine(routineId);
    return webhookId === undefined ? undefined : this.webhook(webhookId);
  }

  private applyCatalog(recorded: RecordedEvent): ApplyOutcome {
    const order = ordering(this.catalog.revision, recorded.revision);
    if (order !== 'next') return order;
    const event = asEvent<AccountCatalogEvent>(recorded);
    this.catalog = { state: evolveAccountCatalog(this.catalog.state, event), revision: recorded.revision };
    return 'applied';
  }

  private applyApiKey(recorded: RecordedEvent): ApplyOutcome {
    const order = ordering(this.apiKeyCatalog.revision, recorded.revision);
    if (order !== 'next') return order;
    const event = asEvent<ApiKeyEvent>(recorded);
    this.apiKeyCatalog = { state: evolveApiKeyCatalog(this.apiKeyCatalog.state, event), revision: recorded.revision };
    if (event.type === 'ApiKeyIssued') this.apiKeysByDigest.set(event.data.keyDigest, event.data.keyId);
    return 'applied';
  }

  private applyWebhook(webhookId: string, recorded: RecordedEvent): ApplyOutcome {
    const before = this.webhooks.get(webhookId);
    const outcome = this.webhooks.apply(webhookId, recorded, evolveWebhookState);
    if (outcome !== 'applied') return outcome;
    const state = this.webhooks.get(webhookId) ?? initialWebhookState();
    const wasHeld = before !== undefined && before.status !== 'not_configured' && before.hold !== null;
    if (recorded.type === 'WebhookHeld' && !wasHeld) {
      this.holdStarts.set(webhookId, recorded.position);
      this.holdEnds.delete(webhookId);
    }
    if (recorded.type === 'WebhookReleased' && wasHeld) this.holdEnds.set(webhookId, recorded.position);
    if (state.status !== 'not_configured' && !this.firstEnabled.has(state.routineId)) this.firstEnabled.set(state.routineId, webhookId);
    if (state.status !== 'not_configured' && state.scheme !== 'bearer' && this.signedDecoy(state.scheme)?.scheme !== state.scheme)
      this.signedDecoys.set(state.scheme, webhookId);
    pruneSigningSecrets(this.signingSecrets.get(webhookId), state);
    return 'applied';
  }

  private applySigningSecret(webhookId: string, recorded: RecordedEvent, evolve: Evolve<SigningSecrets>): ApplyOutcome {
    const outcome = this.signingSecrets.apply(webhookId, recorded, evolve);
    if (outcome === 'applied') pruneSigningSecrets(this.signingSecrets.get(webhookId), this.webhooks.get(webhookId));
    return outcome;
  }
}
