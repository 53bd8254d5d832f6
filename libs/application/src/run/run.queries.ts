import { Streams, type RunEvent } from '@wts/contracts';
import { isWellFormedId, reject, type Rejection } from '@wts/domain';
import type { EventStore } from '@wts/event-store';
import {
  InvalidCursorError,
  type DeliveryListRow,
  type Page,
  type PageRequest,
  type ParkedRow,
  type PayloadState,
  type ReadModelStore,
  type RunRow,
} from '@wts/read-models';
import type { ConfigurationFreshness } from '../configuration/configuration.feeder';
import type { ConfigurationState } from '../configuration/configuration.state';
import { PayloadReader } from '../payload/payload.reader';
import { asEvent } from '../shared/event-envelope';
import { toRunView, toTriggerAccountView, type RunListItem, type RunView, type TriggerAccountView } from './run.view';

export interface DeliveryListItem {
  readonly delivery_id: string;
  readonly run_id: string;
  readonly received_at: string;
  readonly trigger_account: TriggerAccountView;
  readonly content_type: string;
  readonly idempotency_key: string | null;
  /** Whether the payload is still kept, or was removed (expired or erased); the rest of the record stays. */
  readonly payload_state: PayloadState;
  /** When the payload expires; null for a delivery from before payloads were kept apart (it never expires). */
  readonly payload_expires_at: string | null;
}

export interface ParkedListItem {
  readonly source_event_id: string;
  readonly source_stream: string;
  readonly source_type: string;
  readonly delivery_id: string | null;
  readonly routine_id: string | null;
  readonly error: string;
  readonly parked_at: string;
}

/** A page of a listing, newest first; `next_cursor` continues it (null on the last page). */
export interface Listing<T> {
  readonly items: readonly T[];
  readonly nextCursor: string | null;
}

/** Deliveries, runs and parked deliveries for operators and the Config page, from the read-model database. */
export class RunQueries {
  private readonly payloads: PayloadReader;

  constructor(
    private readonly store: EventStore,
    private readonly config: ConfigurationState,
    private readonly freshness: ConfigurationFreshness,
    private readonly readModels: ReadModelStore,
  ) {
    this.payloads = new PayloadReader(store);
  }

  async deliveries(routineId: string, page: PageRequest): Promise<Listing<DeliveryListItem> | Rejection> {
    return (await this.routineMissing(routineId)) ?? listing(() => this.readModels.deliveries(routineId, page), toDeliveryItem);
  }

  async runs(routineId: string, page: PageRequest): Promise<Listing<RunListItem> | Rejection> {
    return (await this.routineMissing(routineId)) ?? listing(() => this.readModels.runs(routineId, page), toRunItem);
  }

  /** Deliveries that can never become a run (kept with their error): all of them, or one routine's. */
  async parked(routineId: string | undefined, page: PageRequest): Promise<Listing<ParkedListItem> | Rejection> {
    const missing = routineId === undefined ? undefined : await this.routineMissing(routineId);
    return missing ?? listing(() => this.readModels.parked(routineId, page), toParkedItem);
  }

  /** Read from the store, not the read model: 404 exactly until the dispatcher has created it. */
  async run(runId: string): Promise<RunView | Rejection> {
    if (!isWellFormedId('run', runId)) return reject('run_not_found', `no run ${runId}`);
    const [recorded] = await this.store.readStream(Streams.run(runId), { maxCount: 1 });
    const event = recorded ? asEvent<RunEvent>(recorded) : undefined;
    // A run withheld (its payload removed before it was made) never existed.
    if (event?.type !== 'RunCreated') return reject('run_not_found', `no run ${runId}`);
    const run = event.data;
    // The payload is stored once, apart, under the delivery the run was made from.
    const payload = await this.payloads.lookupOne(run.deliveryId);
    if (!payload) throw new Error(`run ${runId} has no payload for delivery ${run.deliveryId}`);
    return toRunView(run, payload);
  }

  private async routineMissing(routineId: string): Promise<Rejection | undefined> {
    await this.freshness.ensureFresh([Streams.routine(routineId)]);
    return this.config.routine(routineId) ? undefined : reject('routine_not_found', `no routine ${routineId}`);
  }
}

function toDeliveryItem(row: DeliveryListRow): DeliveryListItem {
  return {
    delivery_id: row.deliveryId,
    run_id: row.runId,
    received_at: row.receivedAt,
    trigger_account: toTriggerAccountView(row.triggerAccount),
    content_type: row.contentType,
    idempotency_key: row.idempotencyKey,
    payload_state: row.payloadState,
    payload_expires_at: row.payloadExpiresAt,
  };
}

function toRunItem(row: RunRow): RunListItem {
  return {
    run_id: row.runId,
    routine_id: row.routineId,
    webhook_id: row.webhookId,
    delivery_id: row.deliveryId,
    trigger_account: toTriggerAccountView(row.triggerAccount),
    status: row.status,
    created_at: row.createdAt,
  };
}

function toParkedItem(row: ParkedRow): ParkedListItem {
  return {
    source_event_id: row.sourceEventId,
    source_stream: row.sourceStream,
    source_type: row.sourceType,
    delivery_id: row.deliveryId,
    routine_id: row.routineId,
    error: row.error,
    parked_at: row.parkedAt,
  };
}

/** Reads a page and maps its rows; a cursor this listing did not issue is the caller's 400. */
export async function listing<R, T>(read: () => Promise<Page<R>>, map: (row: R) => T): Promise<Listing<T> | Rejection> {
  try {
    const page = await read();
    return { items: page.items.map(map), nextCursor: page.nextCursor };
  } catch (error) {
    if (error instanceof InvalidCursorError) return reject('invalid_cursor', error.message);
    throw error;
  }
}
