import type { RejectionCode } from '@wts/domain';
import type { AttemptRow, AuditRow, DeniedAccessBounds, ReadModelStore } from '@wts/read-models';
import { backoffDelay } from '@wts/runtime';
import { HourlyActivityTally } from './hourly-activity.buffer';
import { DeniedAccessBacklog } from '../access/denied-access.buffer';
import type { SignatureFailure } from '../signing/signature.verifier';

/**
 * Why an attempt was refused, for the webhook's owner (callers see only the one 404): a wrong
 * bearer secret, a signature that failed (and how), or a request signed for another scheme than
 * the webhook verifies (`wrong_scheme`: e.g. GitHub pointed at a bearer webhook). A provider's
 * URL-verification handshake is listed the same way: `handshake_answered` when the service answered
 * it, `handshake_refused` when its proof failed (signature, timestamp, Meta's verify token).
 */
export type AttemptReason =
  | RejectionCode
  | 'filter_error'
  | 'wrong_secret'
  | 'webhook_disabled'
  | 'wrong_scheme'
  | SignatureFailure
  | 'handshake_answered'
  | 'handshake_refused';

export interface RejectedAttempt {
  readonly webhookId: string;
  readonly reason: AttemptReason;
  readonly at: string;
  readonly sourceAddress: string;
}

/**
 * A delivery that got past every check: accepted (a run follows), accepted though its filter
 * failed to evaluate (fail open), or turned away by its filter. Counted per webhook and hour.
 */
export type DeliveryOutcome =
  | { readonly webhookId: string; readonly outcome: 'accepted' | 'filtered'; readonly at: string }
  /** Also listed among the webhook's attempts (reason `filter_error`, from `sourceAddress`): its owner sees the error happened. */
  | { readonly webhookId: string; readonly outcome: 'filter_error'; readonly at: string; readonly sourceAddress: string };

/**
 * Where attempts at unknown webhook ids are recorded: not a webhook id (too short to be one), so no
 * routine's listing ever shows them, and never counted by hour (nobody owns them).
 */
export const UNKNOWN_WEBHOOK_ATTEMPTS = 'whk_unknown';

/**
 * Attempt reasons that are not refusals: a handshake answered, and an accepted delivery whose
 * filter failed (listed among the attempts, counted as `filter_error`, never as refused).
 */
const NOT_REFUSED: ReadonlySet<AttemptReason> = new Set<AttemptReason>(['handshake_answered', 'filter_error']);

/** What the public endpoint tells the owner about: refused attempts, idempotent repeats, and what its deliveries became. */
export interface WebhookActivityRecorder {
  recordAttempt(attempt: RejectedAttempt): void;
  recordReplay(deliveryId: string): void;
  recordDelivery(delivery: DeliveryOutcome): void;
}

/** Admin attempts refused with 401/403, for the audit trail (never the credential presented). */
export interface DeniedAccessRecorder {
  recordDeniedAccess(entry: AuditRow): void;
}

export interface ActivityRecorderOptions {
  /** Newest rejected attempts kept per webhook in the database. */
  readonly keepPerWebhook: number;
  /**
   * Denied admin attempts kept in the database: the newest `perSource` of each source address
   * (apart for credentials that named someone and for anonymous ones), the newest `overall` of each.
   */
  readonly keepDeniedAccess: DeniedAccessBounds;
  /** How long a record may wait before it is written. */
  readonly flushEveryMs: number;
  /** Records held while the database is unreachable; beyond, the oldest are dropped (and counted). */
  readonly maxPending: number;
}

export const DEFAULT_ACTIVITY_RECORDER_OPTIONS: ActivityRecorderOptions = {
  keepPerWebhook: 100,
  keepDeniedAccess: { perSource: 100, overall: 10_000 },
  flushEveryMs: 100,
  maxPending: 10_000,
};

/**
 * Writes rejected attempts, replay counts, hourly counts and denied admin attempts to the read-model database off
 * the request path: a
 * record is a push onto a bounded queue, written in batches (one transaction each) shortly after.
 * Unknown webhook ids are never recorded (nobody owns them), and a flood on one webhook only
 * rotates that webhook's newest `keepPerWebhook` rows, so nothing grows with hostile traffic. Denied
 * admin attempts are held and kept per source address (DeniedAccessBacklog, DeniedAccessBounds): a
 * flood of refusals from one address never pushes out another's.
 */
export class BatchedActivityRecorder implements WebhookActivityRecorder, DeniedAccessRecorder {
  private attempts: AttemptRow[] = [];
  private replays: string[] = [];
  private readonly denied: DeniedAccessBacklog;
  private readonly hourly: HourlyActivityTally;
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  private dropped = 0;
  private failures = 0;

  constructor(
    private readonly store: ReadModelStore,
    private readonly onError: (error: unknown, dropped: number) => void,
    private readonly options: ActivityRecorderOptions = DEFAULT_ACTIVITY_RECORDER_OPTIONS,
  ) {
    this.denied = new DeniedAccessBacklog(options.keepDeniedAccess.perSource, options.maxPending);
    this.hourly = new HourlyActivityTally(options.maxPending);
  }

  recordAttempt(attempt: RejectedAttempt): void {
    this.attempts.push(attempt);
    this.trim(this.attempts);
    if (!NOT_REFUSED.has(attempt.reason)) this.count(attempt.webhookId, `refused:${attempt.reason}`, attempt.at);
    this.schedule(this.options.flushEveryMs);
  }

  /** Counted per webhook and hour (the Config page's chart); a filter error is listed among the attempts too. */
  recordDelivery(delivery: DeliveryOutcome): void {
    this.count(delivery.webhookId, delivery.outcome, delivery.at);
    if (delivery.outcome === 'filter_error') {
      const { webhookId, at, sourceAddress } = delivery;
      this.attempts.push({ webhookId, reason: 'filter_error', at, sourceAddress });
      this.trim(this.attempts);
    }
    this.schedule(this.options.flushEveryMs);
  }

  recordReplay(deliveryId: string): void {
    this.replays.push(deliveryId);
    this.trim(this.replays);
    this.schedule(this.options.flushEveryMs);
  }

  recordDeniedAccess(entry: AuditRow): void {
    this.dropped += this.denied.add(entry);
    this.schedule(this.options.flushEveryMs);
  }

  /** Writes everything recorded so far (a listing calls it first: this replica's own records show at once). */
  flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    this.writing = this.writing.then(() => this.write());
    return this.writing;
  }

  async stop(): Promise<void> {
    await this.flush();
  }

  private schedule(delayMs: number): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, delayMs);
    this.timer.unref();
  }

  /** Unknown webhook ids are never counted: nobody owns them, and their rows would grow with hostile traffic. */
  private count(webhookId: string, outcome: string, at: string): void {
    if (webhookId !== UNKNOWN_WEBHOOK_ATTEMPTS) this.dropped += this.hourly.add(webhookId, outcome, at);
  }

  private async write(): Promise<void> {
    const attempts = this.attempts;
    const replays = this.replays;
    const denied = this.denied.takeAll();
    const hourly = this.hourly.takeAll();
    this.attempts = [];
    this.replays = [];
    try {
      if (attempts.length > 0) await this.store.recordAttempts(attempts, this.options.keepPerWebhook);
    } catch (error) {
      this.attempts = this.bounded([...attempts, ...this.attempts]);
      this.replays = this.bounded([...replays, ...this.replays]);
      this.holdAgain(denied);
      this.dropped += this.hourly.restore(hourly);
      return this.failed(error);
    }
    try {
      if (replays.length > 0) await this.store.recordReplays(replays);
    } catch (error) {
      this.replays = this.bounded([...replays, ...this.replays]);
      this.holdAgain(denied);
      this.dropped += this.hourly.restore(hourly);
      return this.failed(error);
    }
    try {
      if (denied.length > 0) await this.store.recordDeniedAccess(denied, this.options.keepDeniedAccess);
    } catch (error) {
      this.holdAgain(denied);
      this.dropped += this.hourly.restore(hourly);
      return this.failed(error);
    }
    try {
      if (hourly.length > 0) await this.store.recordHourlyCounts(hourly, HourlyActivityTally.pruneBefore(hourly));
    } catch (error) {
      this.dropped += this.hourly.restore(hourly);
      return this.failed(error);
    }
    this.failures = 0;
  }

  /** Denied entries a write could not take, held again before those recorded since (each source keeps its newest). */
  private holdAgain(denied: readonly AuditRow[]): void {
    for (const entry of [...denied, ...this.denied.takeAll()]) this.dropped += this.denied.add(entry);
  }

  /** Kept for a later flush, with backoff: the database may be back by then. */
  private failed(error: unknown): void {
    this.failures += 1;
    this.onError(error, this.dropped);
    // Twice the flush interval after the first failure, doubled after each one more, up to 5 s.
    this.schedule(backoffDelay({ initialDelayMs: this.options.flushEveryMs * 2, maxDelayMs: 5_000 }, this.failures));
  }

  private trim(items: unknown[]): void {
    if (items.length <= this.options.maxPending) return;
    items.shift();
    this.dropped += 1;
  }

  /** The newest maxPending; what falls off is counted. */
  private bounded<T>(items: T[]): T[] {
    if (items.length <= this.options.maxPending) return items;
    this.dropped += items.length - this.options.maxPending;
    return items.slice(items.length - this.options.maxPending);
  }
}
