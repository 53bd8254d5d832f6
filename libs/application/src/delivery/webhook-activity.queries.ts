import { Streams } from '@wts/contracts';
import { reject, type Rejection } from '@wts/domain';
import type { DeliveryListRow, PageRequest, ReadModelStore } from '@wts/read-models';
import type { ConfigurationFreshness } from '../configuration/configuration.feeder';
import type { ConfigurationState } from '../configuration/configuration.state';
import { listing, type Listing } from '../run/run.queries';
import type { Clock } from '../shared/runtime.port';
import { chartRange, hourlyActivity, type HourlyActivityItem } from './hourly-activity.view';
import type { BatchedActivityRecorder } from './webhook-activity.recorder';

export interface RejectedAttemptItem {
  readonly reason: string;
  readonly at: string;
  readonly source_address: string;
}

/** A delivery's replay count (`GET …/webhook/replays`): two fields of its row, the listing's own. */
export type DeliveryReplaysItem = Pick<DeliveryListRow, 'delivery_id' | 'replays'>;

/**
 * For the owner only: what callers never learn (which of wrong secret, disabled endpoint and the
 * other refusals it was), shared by every replica through the read-model database.
 */
export class WebhookActivityQueries {
  constructor(
    private readonly config: ConfigurationState,
    private readonly freshness: ConfigurationFreshness,
    private readonly readModels: ReadModelStore,
    private readonly recorder: BatchedActivityRecorder,
    private readonly clock: Clock,
  ) {}

  /** Rejected attempts on the routine's webhook, newest first (the newest 100 are kept per webhook). */
  async attempts(routineId: string, page: PageRequest): Promise<Listing<RejectedAttemptItem> | Rejection> {
    const webhookId = await this.webhookIdOf(routineId);
    if (typeof webhookId !== 'string') return webhookId ?? { items: [], nextCursor: null };
    // What this replica recorded a moment ago shows at once.
    await this.recorder.flush();
    return listing(
      () => this.readModels.attempts(webhookId, page),
      (attempt) => ({
        reason: attempt.reason,
        at: attempt.at,
        source_address: attempt.sourceAddress,
      }),
    );
  }

  /** Replay counts of the deliveries `GET …/webhook/deliveries` lists with the same page. */
  async replays(routineId: string, page: PageRequest): Promise<Listing<DeliveryReplaysItem> | Rejection> {
    const webhookId = await this.webhookIdOf(routineId);
    if (webhookId !== undefined && typeof webhookId !== 'string') return webhookId;
    await this.recorder.flush();
    return listing(
      () => this.readModels.deliveries(routineId, page),
      (delivery) => ({ delivery_id: delivery.delivery_id, replays: delivery.replays }),
    );
  }

  /**
   * The webhook's last 24 hours (accepted, filtered, filter errors, refused by reason), oldest
   * first, ending with the current hour; all zeros for a routine without a webhook yet.
   */
  async hourly(routineId: string): Promise<readonly HourlyActivityItem[] | Rejection> {
    const webhookId = await this.webhookIdOf(routineId);
    if (webhookId !== undefined && typeof webhookId !== 'string') return webhookId;
    await this.recorder.flush();
    const now = this.clock.now();
    const { from, to } = chartRange(now);
    return hourlyActivity(webhookId === undefined ? [] : await this.readModels.hourlyCounts(webhookId, from, to), now);
  }

  /** The webhook id; undefined when the routine has none yet; a rejection when there is no such routine. */
  private async webhookIdOf(routineId: string): Promise<string | Rejection | undefined> {
    await this.freshness.ensureFresh([Streams.routine(routineId), Streams.webhookSlot(routineId)]);
    if (!this.config.routine(routineId)) return reject('routine_not_found', `no routine ${routineId}`);
    return this.config.webhookIdOfRoutine(routineId);
  }
}
