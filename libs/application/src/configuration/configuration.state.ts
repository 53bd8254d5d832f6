import {
  ACCOUNT_CATALOG_STREAM,
  API_KEY_CATALOG_STREAM,
  StreamCategories,
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

/** The stream categories decisions need: nothing else is ever folded into this state. */
export const CONFIGURATION_PREFIXES: readonly string[] = [
  StreamCategories.account,
  StreamCategories.routine,
  StreamCategories.webhook,
  StreamCategories.webhookSlot,
  StreamCategories.apiKey,
];

/** applied: folded; known: at or before what is folded (a repeat); gap: a revision is missing before it (read the stream). */
export type ApplyOutcome = 'applied' | 'known' | 'gap' | 'ignored';

interface Folded<S> {
  readonly state: S;
  readonly revision: bigint;
}

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
  private readonly routines = new Map<
    string,
    Folded<RoutineState | null> & { readonly createdAt: GlobalPosition; readonly snapshotBytes: number }
  >();
  private readonly webhooks = new Map<string, Folded<WebhookState>>();
  /** The claim of each routine's one webhook id (webhook_slot-<routine id>). */
  private readonly slots = new Map<string, Folded<string>>();
  /** Stores written before slots existed: a routine's webhook is the first one enabled for it. */
  private readonly firstEnabled = new Map<string, string>();

  /** The revision folded for a stream (-1n: nothing of it). */
  revisionOf(streamId: string): bigint {
    if (streamId === ACCOUNT_CATALOG_STREAM) return this.catalog.revision;
    if (streamId === API_KEY_CATALOG_STREAM) return this.apiKeyCatalog.revision;
    if (streamId.startsWith(StreamCategories.routine))
      return this.routines.get(streamId.slice(StreamCategories.routine.length))?.revision ?? -1n;
    if (streamId.startsWith(StreamCategories.webhook))
      return this.webhooks.get(streamId.slice(StreamCategories.webhook.length))?.revision ?? -1n;
    if (streamId.startsWith(StreamCategories.webhookSlot))
      return this.slots.get(streamId.slice(StreamCategories.webhookSlot.length))?.revision ?? -1n;
    return -1n;
  }

  apply(recorded: RecordedEvent): ApplyOutcome {
    const { streamId } = recorded;
    if (streamId === ACCOUNT_CATALOG_STREAM) return this.applyCatalog(recorded);
    if (streamId === API_KEY_CATALOG_STREAM) return this.applyApiKey(recorded);
    if (streamId.startsWith(StreamCategories.routine)) return this.applyRoutine(streamId.slice(StreamCategories.routine.length), recorded);
    if (streamId.startsWith(StreamCategories.webhook)) return this.applyWebhook(streamId.slice(StreamCategories.webhook.length), recorded);
    if (streamId.startsWith(StreamCategories.webhookSlot))
      return this.applySlot(streamId.slice(StreamCategories.webhookSlot.length), recorded);
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
    return [...this.routines.values()]
      .filter((entry): entry is typeof entry & { state: RoutineState } => entry.state !== null)
      .sort((a, b) => comparePositions(b.createdAt, a.createdAt))
      .map((entry) => entry.state);
  }

  webhook(webhookId: string): ConfiguredWebhook | undefined {
    const state = this.webhooks.get(webhookId)?.state;
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

  /** The id claimed for the routine's webhook, once claimed (it may not be enabled yet). */
  webhookIdOfRoutine(routineId: string): string | undefined {
    return this.slots.get(routineId)?.state ?? this.firstEnabled.get(routineId);
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

  private applyRoutine(routineId: string, recorded: RecordedEvent): ApplyOutcome {
    const current = this.routines.get(routineId);
    const order = ordering(current?.revision ?? -1n, recorded.revision);
    if (order !== 'next') return order;
    const state = evolveRoutine(current?.state ?? null, asEvent<RoutineEvent>(recorded));
    const snapshotBytes = state === null ? 0 : Buffer.byteLength(JSON.stringify(routineSnapshot(state)));
    this.routines.set(routineId, { state, revision: recorded.revision, createdAt: current?.createdAt ?? recorded.position, snapshotBytes });
    return 'applied';
  }

  private applyWebhook(webhookId: string, recorded: RecordedEvent): ApplyOutcome {
    const current = this.webhooks.get(webhookId);
    const order = ordering(current?.revision ?? -1n, recorded.revision);
    if (order !== 'next') return order;
    const state = evolveWebhook(current?.state ?? initialWebhookState(), asEvent<WebhookEvent>(recorded));
    this.webhooks.set(webhookId, { state, revision: recorded.revision });
    if (state.status !== 'not_configured' && !this.firstEnabled.has(state.routineId)) this.firstEnabled.set(state.routineId, webhookId);
    return 'applied';
  }

  private applySlot(routineId: string, recorded: RecordedEvent): ApplyOutcome {
    const current = this.slots.get(routineId);
    const order = ordering(current?.revision ?? -1n, recorded.revision);
    if (order !== 'next') return order;
    // Claimed with "stream must not exist": the first event is the claim, for good.
    const webhookId = current?.state ?? asEvent<WebhookIdAssigned>(recorded).data.webhookId;
    this.slots.set(routineId, { state: webhookId, revision: recorded.revision });
    return 'applied';
  }
}

function ordering(folded: bigint, revision: bigint): 'next' | 'known' | 'gap' {
  if (revision <= folded) return 'known';
  return revision === folded + 1n ? 'next' : 'gap';
}
