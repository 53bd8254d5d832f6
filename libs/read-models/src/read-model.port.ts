import type { GlobalPosition } from '@wts/event-store';
import type { HourlyCount } from './hourly-activity';
import type { DeliveryPayloadState, ErasureCandidatePage, ErasureCandidateSelection } from './payload-selection';

/**
 * The read-model database: listings for operators and the Config page (deliveries, runs, parked
 * deliveries, rejected attempts). Adapters: SQLite (embedded default, a file beside the event
 * store) and PostgreSQL (DATABASE_URL). Rows come from one checkpointed projector that writes
 * its rows and its checkpoint in one transaction; rejected attempts and replay counts are written
 * by the ingress directly (they are not events).
 *
 * The port lives beside its adapters, as the EventStore port does in @wts/event-store: the use
 * cases import it from `@wts/read-models`, and the adapters' own sources (also those a worker
 * thread or a second process loads without the `@wts/*` aliases) reach it by a relative path.
 */

/**
 * The listings' rows carry their tables' column names, which are also the admin API's field names:
 * the admin API lists parked and run rows as they are, and picks its fields of delivery rows (see
 * RunQueries). A trigger account is stored in two columns (trigger_account_id, _email) and read
 * back nested, as the API shows it.
 */
export interface TriggerAccountRow {
  readonly account_id: string;
  readonly email: string;
}

export interface DeliveryRow {
  readonly delivery_id: string;
  readonly routine_id: string;
  readonly webhook_id: string;
  readonly run_id: string;
  readonly received_at: string;
  readonly trigger_account: TriggerAccountRow;
  readonly content_type: string;
  readonly idempotency_key: string | null;
  /**
   * When the payload expires (ISO 8601, as in the event). Null for a delivery written before
   * payloads were kept apart: its payload is inside its event and never expires.
   */
  readonly payload_expires_at: string | null;
}

/** Where a delivery's payload is: still kept, or removed (and why). The record of the delivery stays either way. */
export type PayloadState = 'kept' | 'expired' | 'erased';

/** Payloads removed (PayloadsRemoved): each listed delivery whose payload is still kept takes the reason and time. */
export interface PayloadRemovalRow {
  readonly deliveryIds: readonly string[];
  readonly state: Exclude<PayloadState, 'kept'>;
  readonly removedAt: string;
}

/** A run as the projection writes it and as the admin API lists it (`GET /admin/routines/:id/runs`). */
export interface RunRow {
  readonly run_id: string;
  readonly routine_id: string;
  readonly webhook_id: string;
  readonly delivery_id: string;
  readonly trigger_account: TriggerAccountRow;
  readonly status: string;
  readonly created_at: string;
}

/**
 * A parked delivery: as the projection writes it, as its table stores it (column for field, in the
 * table's order) and as the admin API lists it (`GET /admin/parked`, `GET …/webhook/parked`).
 */
export interface ParkedRow {
  /** The event that could not be handled (the DeliveryAccepted event's id). */
  readonly source_event_id: string;
  readonly source_stream: string;
  readonly source_type: string;
  /** The delivery and routine it belongs to, when known. */
  readonly delivery_id: string | null;
  readonly routine_id: string | null;
  readonly error: string;
  readonly parked_at: string;
}

export interface AttemptRow {
  readonly webhookId: string;
  /** Why it was refused (callers saw one 404 for wrong secret / disabled; the owner sees which). */
  readonly reason: string;
  readonly at: string;
  readonly sourceAddress: string;
}

/** Who did it (the metadata's actor); null when nobody was identified (a 401) or an event predates actors. */
export interface AuditActor {
  readonly kind: 'oidc' | 'api_key' | 'bootstrap';
  readonly subject: string;
  readonly display: string;
  /** Whether `display` names this actor for sure (ActorRecord.displayVerified): only then does the actor filter match it. */
  readonly displayVerified: boolean;
}

/**
 * One entry of the audit trail: an admin write (projected from its event, `succeeded`) or an admin
 * attempt refused with 401/403 (`denied`, written by the ingress directly: not an event). Never a
 * credential.
 */
export interface AuditRow {
  /** The event's id, or a fresh id for a denied attempt: the key (writing it twice is a no-op). */
  readonly entryId: string;
  readonly at: string;
  readonly actor: AuditActor | null;
  /** What was done or tried: `webhook.rotate`, `routine.update`, `api_key.issue`, `replay`, `GET /admin/audit`… */
  readonly action: string;
  /** What it was done to: `routine`, `webhook`, `account`, `api_key`, `event_store`, `read_models`, `signing_secrets`, `admin_api`. */
  readonly targetType: string;
  readonly targetId: string | null;
  /**
   * The routine it concerns, when known. Webhook events after the first name only their webhook:
   * the adapter fills this from the webhook's routine (see `webhookId`).
   */
  readonly routineId: string | null;
  /** Set on webhook entries: the adapter resolves `routineId` from it when the row has none. */
  readonly webhookId: string | null;
  readonly outcome: 'succeeded' | 'denied';
  /** The W3C trace id of the request (32 hex), when there was one. */
  readonly traceId: string | null;
  /** A short human note: the denial's reason (`insufficient_role: needs operator`), a replay's selection… */
  readonly detail: string | null;
  /**
   * Where a denied attempt came from: the client address as the ingress determines it
   * (X-Forwarded-For only from a TRUST_PROXY peer). Null on admin writes (projected from events).
   */
  readonly sourceAddress: string | null;
}

/**
 * How many denied entries recordDeniedAccess keeps. Denied entries fall in two classes: those whose
 * credential named someone (`actor` set: a revoked or expired API key, a role too low) and those
 * that named nobody (no credential, an unknown one). Each (source address, class) keeps its newest
 * `perSource`, and each class its newest `overall`: at most 2 × `overall` rows whatever the traffic.
 */
export interface DeniedAccessBounds {
  readonly perSource: number;
  readonly overall: number;
}

/** Which routine a webhook belongs to (from WebhookIdAssigned / WebhookEnabled): audit rows of later webhook events find their routine by it. */
export interface WebhookRoutineRow {
  readonly webhookId: string;
  readonly routineId: string;
}

export interface AuditFilter {
  readonly routineId?: string;
  /** An actor's subject (exact), or their display when it is verified (compared case-insensitively). */
  readonly actor?: string;
}

/**
 * One projected row, placed in the global order by the event it came from. Every kind inserts a
 * row except `payload_removal`, which updates the rows of deliveries projected before it.
 */
export type ProjectionChange =
  | { readonly kind: 'delivery'; readonly position: GlobalPosition; readonly row: DeliveryRow }
  | { readonly kind: 'run'; readonly position: GlobalPosition; readonly row: RunRow }
  | { readonly kind: 'parked'; readonly position: GlobalPosition; readonly row: ParkedRow }
  | { readonly kind: 'webhook_routine'; readonly position: GlobalPosition; readonly row: WebhookRoutineRow }
  | { readonly kind: 'audit'; readonly position: GlobalPosition; readonly row: AuditRow }
  | { readonly kind: 'payload_removal'; readonly position: GlobalPosition; readonly row: PayloadRemovalRow };

/** `limit` 1–1000; `cursor` is the opaque `nextCursor` of the previous page (absent: first page). */
export interface PageRequest {
  readonly limit: number;
  readonly cursor?: string;
}

/** Newest first. `nextCursor` is null on the last page. */
export interface Page<T> {
  readonly items: readonly T[];
  readonly nextCursor: string | null;
}

export type DeliveryListRow = DeliveryRow & {
  /** Whether the payload is still kept, or was removed (expired or erased); the rest of the record stays. */
  readonly payload_state: PayloadState;
  /** When the payload was removed (null while kept). */
  readonly payload_removed_at: string | null;
  /** Idempotent repeats answered with the original 202, by any ingress replica. */
  readonly replays: number;
};

/** A cursor the adapter did not issue (malformed or tampered): the caller answers 400. */
export class InvalidCursorError extends Error {
  constructor(cursor: string) {
    super(`not a cursor of this listing: ${JSON.stringify(cursor.slice(0, 64))}`);
    this.name = 'InvalidCursorError';
  }
}

/** The read-model database cannot be reached: callers answer 503. */
/** A hold's span in $all: from where it began to where it was released (absent: still held). */
export interface WaitingRange {
  readonly after: GlobalPosition;
  readonly before?: GlobalPosition;
}

export class ReadModelUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ReadModelUnavailableError';
  }
}

export interface ReadModelStore {
  /** The checkpoint of projection `name`; undefined before its first commit (or after reset). */
  loadCheckpoint(name: string): Promise<GlobalPosition | undefined>;
  /**
   * In one transaction: writes `changes` (idempotent: a row whose key exists is left as it is)
   * and moves the checkpoint of `name` from `from` (undefined: no checkpoint yet) to `to`.
   * Returns false, and writes nothing, when the checkpoint is not at `from` (another writer moved
   * it, or a rebuild reset it): the caller reloads the checkpoint and goes on from there.
   */
  commit(name: string, changes: readonly ProjectionChange[], from: GlobalPosition | undefined, to: GlobalPosition): Promise<boolean>;
  /** Deletes every projected row (deliveries, runs, parked, webhook routines, succeeded audit entries) and the checkpoint of `name`, in one transaction. */
  reset(name: string): Promise<void>;

  deliveries(routineId: string, page: PageRequest): Promise<Page<DeliveryListRow>>;
  /**
   * Of the routine's newest `cap` deliveries accepted strictly between `range.after` and
   * `range.before` (absent: up to now) in $all, how many have neither a run nor a park yet. A
   * released hold's deliveries get their runs oldest first, so the ones still waiting are the
   * newest: the answer is exact below `cap`, and `cap` when at least that many wait. The rows
   * looked at are bounded by `cap`, whatever the traffic. RangeError for a cap that is not a
   * non-negative safe integer or a position outside int64.
   */
  waitingDeliveries(routineId: string, range: WaitingRange, cap: number): Promise<number>;
  runs(routineId: string, page: PageRequest): Promise<Page<RunRow>>;
  /** Every parked delivery, or those of one routine. */
  parked(routineId: string | undefined, page: PageRequest): Promise<Page<ParkedRow>>;

  /** Appends rejected attempts, then keeps only the newest `keepPerWebhook` of each webhook in the batch. */
  recordAttempts(attempts: readonly AttemptRow[], keepPerWebhook: number): Promise<void>;
  attempts(webhookId: string, page: PageRequest): Promise<Page<AttemptRow>>;
  /**
   * Appends denied admin attempts (outcome `denied`, each with its source address), then trims
   * what the batch touched to `bounds` (see DeniedAccessBounds): a flood from one address rotates
   * only that address's own entries of its class, and a flood of anonymous refusals, from however
   * many addresses, never drops an entry that names someone (a revoked key tried). The trims read
   * index ranges of at most `perSource` + 1 rows per source in the batch and `overall` + 1 per
   * class, never the whole table. Projected entries are never dropped by it; reset() never drops
   * denied ones. RangeError, writing nothing, for a row not denied or without a source address, or
   * bounds that are not non-negative safe integers.
   */
  recordDeniedAccess(rows: readonly AuditRow[], bounds: DeniedAccessBounds): Promise<void>;
  /** The audit trail, newest first (`at`, then entry id), projected and denied entries together. */
  audit(filter: AuditFilter, page: PageRequest): Promise<Page<AuditRow>>;
  /** Adds one replay per id (an id may appear several times: it counts that many). */
  recordReplays(deliveryIds: readonly string[]): Promise<void>;
  /**
   * Adds `counts` to their (webhook, hour, outcome) rows, then deletes at most HOURLY_PRUNE_LIMIT
   * rows of hours before `pruneBefore`, in one transaction. RangeError, writing nothing, for an
   * hour that is not an hour start or a count that is not a positive integer (hourly-activity.ts).
   */
  recordHourlyCounts(counts: readonly HourlyCount[], pruneBefore: string): Promise<void>;
  /** The webhook's counts of the hours from `from` (included) to `to` (excluded), oldest first (then by outcome). */
  hourlyCounts(webhookId: string, from: string, to: string): Promise<readonly HourlyCount[]>;

  /**
   * Deliveries whose payload is kept and expired at `now` (payload_expires_at <= now), oldest
   * expiry first (then by id), at most `limit` (1–10,000): the retention sweep's candidates where
   * the payload store has no index of its own (EventStoreDB). As fresh as the projector; a
   * delivery written before payloads were kept apart never expires. RangeError for a bad limit or date.
   */
  payloadsDue(now: Date, limit: number): Promise<readonly string[]>;
  /**
   * One window of the deliveries whose payload is still kept, in (received_at, delivery_id) order:
   * at most `limit` of them read (`scanned`; the ids given, or the kept rows in the receipt-time
   * range, an index range scan), of which those matching every selector (see
   * ErasureCandidateSelection) are answered — possibly none on a page that is not the last. `after`
   * is the previous page's `next` (null: from the start), and `next` is null on the last page. RangeError
   * for an empty selection, more than 1,000 ids, a time that is not one or a limit outside 1–10,000;
   * InvalidCursorError for an `after` this method did not issue.
   */
  erasureCandidates(selection: ErasureCandidateSelection, after: string | null, limit: number): Promise<ErasureCandidatePage>;
  /** The payload state of each of these deliveries the read model has (at most 1,000 ids; absent ones are left out). */
  deliveryPayloadStates(deliveryIds: readonly string[]): Promise<ReadonlyMap<string, DeliveryPayloadState>>;

  /**
   * Whether this instance should run the projector: one writer among replicas (PostgreSQL: a
   * session advisory lock, held until close or until the connection is lost; SQLite: always true,
   * the checkpoint compare-and-set in commit() keeps a second writer harmless).
   */
  tryAcquireProjectorLease(): Promise<boolean>;
  /** False once a lease that was acquired has been lost (connection dropped). */
  holdsProjectorLease(): boolean;

  /** Health: resolves when the database answers. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
