import { Streams, type RunEvent } from '@wts/contracts';
import { isWellFormedId, reject, type Rejection } from '@wts/domain';
import type { EventStore } from '@wts/event-store';
import {
  InvalidCursorError,
  type DeliveryListRow,
  type Page,
  type PageRequest,
  type ParkedRow,
  type ReadModelStore,
  type RunRow,
} from '@wts/read-models';
import type { ConfigurationFreshness } from '../configuration/configuration.feeder';
import type { ConfigurationState } from '../configuration/configuration.state';
import { PayloadReader } from '../payload/payload.reader';
import { asEvent } from '../shared/event-envelope';
import { toRunView, type RunView } from './run.view';

/**
 * A delivery as `GET …/webhook/deliveries` lists it: the fields of its row the API shows, in the
 * API's order. The rest stays out of the answer: the routine and webhook are the request's own,
 * replay counts have their listing (`GET …/webhook/replays`) and the removal time is not shown.
 */
export type DeliveryListItem = Pick<
  DeliveryListRow,
  'delivery_id' | 'run_id' | 'received_at' | 'trigger_account' | 'content_type' | 'idempotency_key' | 'payload_state' | 'payload_expires_at'
>;

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

  async runs(routineId: string, page: PageRequest): Promise<Listing<RunRow> | Rejection> {
    return (await this.routineMissing(routineId)) ?? listing(() => this.readModels.runs(routineId, page));
  }

  /** Deliveries that can never become a run (kept with their error): all of them, or one routine's. */
  async parked(routineId: string | undefined, page: PageRequest): Promise<Listing<ParkedRow> | Rejection> {
    const missing = routineId === undefined ? undefined : await this.routineMissing(routineId);
    return missing ?? listing(() => this.readModels.parked(routineId, page));
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
    delivery_id: row.delivery_id,
    run_id: row.run_id,
    received_at: row.received_at,
    trigger_account: row.trigger_account,
    content_type: row.content_type,
    idempotency_key: row.idempotency_key,
    payload_state: row.payload_state,
    payload_expires_at: row.payload_expires_at,
  };
}

/**
 * Reads a page, its rows as the API lists them (or mapped by `map`, where the API shapes them
 * differently); a cursor this listing did not issue is the caller's 400.
 */
export function listing<T>(read: () => Promise<Page<T>>): Promise<Listing<T> | Rejection>;
export function listing<R, T>(read: () => Promise<Page<R>>, map: (row: R) => T): Promise<Listing<T> | Rejection>;
export async function listing<R, T>(read: () => Promise<Page<R>>, map?: (row: R) => T): Promise<Listing<R | T> | Rejection> {
  try {
    const page = await read();
    return map === undefined
      ? { items: page.items, nextCursor: page.nextCursor }
      : { items: page.items.map(map), nextCursor: page.nextCursor };
  } catch (error) {
    if (error instanceof InvalidCursorError) return reject('invalid_cursor', error.message);
    throw error;
  }
}
