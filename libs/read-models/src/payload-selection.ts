import { decodeCandidateCursor, encodeCandidateCursor, type CandidatePlace } from './cursor';
import type { PayloadState } from './read-model.port';
import { foldAccountEmail } from './read-model.records';

/**
 * Which deliveries' payloads the read model knows to be kept, for the payload lifecycle: the
 * retention sweep's due payloads (payloadsDue) and an erasure's structured selection
 * (erasureCandidates). One SQL text per selection shape for both adapters, which differ only in
 * how a parameter and a list of ids are written and in how SQLite is told its index. A page is a
 * window of the kept rows in (received_at, delivery_id) order — of the ids given (primary key), or
 * else of one partial index of the kept rows by receipt time, narrowed to the receipt-time range —
 * and the routine and the account are tested on the rows read: a page reads at most `limit` + 1
 * rows past the cursor whatever the table holds (it may hold fewer matches than `limit`, even
 * none), and past the ids given, removed payloads are never read again. One index of the kept
 * rows instead of one per selector: each costs every delivery a b-tree write while its payload is
 * kept (issue 31's bytes at rest, the projector's time), and an erasure is rare.
 */

/**
 * An erasure's structured selectors; every one given must match (an intersection). The search
 * string (`contains`) is not here: it is matched inside the payload store.
 */
export interface ErasureCandidateSelection {
  /** At most 1,000 ids; an empty list matches nothing. */
  readonly deliveryIds?: readonly string[];
  readonly routineId?: string;
  /** An email, matched case-insensitively (toLowerCase, as the account catalog compares addresses). */
  readonly triggerAccount?: string;
  /** Inclusive: received at or after this time (ISO 8601, any offset). */
  readonly receivedAfter?: string;
  /** Exclusive: received strictly before this time (ISO 8601, any offset). */
  readonly receivedBefore?: string;
}

export interface ErasureCandidatePage {
  /** The kept rows of this window that match every selector (at most `limit`, possibly none). */
  readonly deliveryIds: readonly string[];
  /** How many kept rows the window read (at most `limit`). */
  readonly scanned: number;
  /** Where the next page starts (pass it as `after`); null on the last page. */
  readonly next: string | null;
}

export interface DeliveryPayloadState {
  readonly state: PayloadState;
  readonly expiresAt: string | null;
  readonly removedAt: string | null;
}

/** A row of an erasure candidate listing: a kept row of the window, and whether it matches the routine and account selectors. */
export interface CandidateRecord {
  readonly delivery_id: string;
  readonly received_at: string;
  /** SQLite answers 1 or 0 (a bigint on a connection of safe integers), PostgreSQL true or false. */
  readonly hit: number | bigint | boolean;
}

export interface PayloadStateRecord {
  readonly delivery_id: string;
  readonly payload_state: string;
  readonly payload_expires_at: string | null;
  readonly payload_removed_at: string | null;
}

export const MAX_SELECTED_DELIVERY_IDS = 1000;
export const MAX_PAYLOAD_BATCH = 10_000;

export type CandidateParam =
  'deliveryIds' | 'routineId' | 'account' | 'receivedAfter' | 'receivedBefore' | 'afterReceivedAt' | 'afterDeliveryId' | 'limit';

export interface CandidateShape {
  readonly ids: boolean;
  readonly routine: boolean;
  readonly account: boolean;
  readonly receivedAfter: boolean;
  readonly receivedBefore: boolean;
  readonly after: boolean;
}

/** A checked selection and page, ready to bind: `limit` is the page size + 1 (the extra row says another page exists). */
export interface CandidateQuery {
  readonly shape: CandidateShape;
  readonly values: Readonly<Record<CandidateParam, string | number | readonly string[] | null>>;
  readonly limit: number;
}

export interface CandidateListing {
  readonly text: string;
  /** The parameters in order of first use (PostgreSQL numbers them so). */
  readonly params: readonly CandidateParam[];
}

export interface CandidateDialect {
  /** How parameter `name` is written, the `index`-th distinct one used. */
  readonly param: (name: CandidateParam, index: number) => string;
  /** `delivery_id` is one of the ids bound to `placeholder` (SQLite: a JSON array; PostgreSQL: text[]). */
  readonly idIn: (placeholder: string) => string;
  /** The table read when no ids are given, where a dialect names the index it must use. */
  readonly keptByReceived: string;
}

/** The one partial index of the kept rows by receipt time (migrations 6 and 8). */
export const KEPT_BY_RECEIVED_INDEX = 'rm_deliveries_kept_by_received';

export function candidateListing(shape: CandidateShape, dialect: CandidateDialect): CandidateListing {
  const params: CandidateParam[] = [];
  const p = (name: CandidateParam): string => {
    if (!params.includes(name)) params.push(name);
    return dialect.param(name, params.indexOf(name));
  };
  const window = [
    "payload_state = 'kept'",
    ...(shape.ids ? [dialect.idIn(p('deliveryIds'))] : []),
    ...(shape.receivedAfter ? [`received_at >= ${p('receivedAfter')}`] : []),
    ...(shape.receivedBefore ? [`received_at < ${p('receivedBefore')}`] : []),
    ...(shape.after ? [`(received_at, delivery_id) > (${p('afterReceivedAt')}, ${p('afterDeliveryId')})`] : []),
  ];
  const tests = [
    ...(shape.routine ? [`routine_id = ${p('routineId')}`] : []),
    ...(shape.account ? [`trigger_account_email_folded = ${p('account')}`] : []),
  ];
  const hit = tests.length === 0 ? 'TRUE' : tests.join(' AND ');
  const text = `SELECT delivery_id, received_at, (${hit}) AS hit FROM ${shape.ids ? 'rm_deliveries' : dialect.keptByReceived}
    WHERE ${window.join(' AND ')} ORDER BY received_at, delivery_id LIMIT ${p('limit')}`;
  return { text, params };
}

/** The 64 shapes' key, for the adapters' caches of prepared statements. */
export function candidateShapeKey(shape: CandidateShape): string {
  return (['ids', 'routine', 'account', 'receivedAfter', 'receivedBefore', 'after'] as const)
    .map((key) => (shape[key] ? '1' : '0'))
    .join('');
}

/** Validates everything before the database is touched (RangeError / InvalidCursorError). */
export function candidateQuery(selection: ErasureCandidateSelection, after: string | null, limit: number): CandidateQuery {
  const { deliveryIds, routineId, triggerAccount, receivedAfter, receivedBefore } = selection;
  if ([deliveryIds, routineId, triggerAccount, receivedAfter, receivedBefore].every((selector) => selector === undefined)) {
    // Nothing selected would mean every payload: never the meaning of a mistake.
    throw new RangeError('an erasure selection needs at least one selector');
  }
  if (deliveryIds && deliveryIds.length > MAX_SELECTED_DELIVERY_IDS) {
    throw new RangeError(`at most ${MAX_SELECTED_DELIVERY_IDS} delivery ids, got ${deliveryIds.length}`);
  }
  checkBatchLimit(limit);
  const place: CandidatePlace | undefined = decodeCandidateCursor(after);
  const shape: CandidateShape = {
    ids: deliveryIds !== undefined,
    routine: routineId !== undefined,
    account: triggerAccount !== undefined,
    receivedAfter: receivedAfter !== undefined,
    receivedBefore: receivedBefore !== undefined,
    after: place !== undefined,
  };
  const values = {
    deliveryIds: deliveryIds ?? null,
    routineId: routineId ?? null,
    account: triggerAccount === undefined ? null : foldAccountEmail(triggerAccount),
    receivedAfter: receivedAfter === undefined ? null : isoInstant(receivedAfter, 'receivedAfter'),
    receivedBefore: receivedBefore === undefined ? null : isoInstant(receivedBefore, 'receivedBefore'),
    afterReceivedAt: place?.receivedAt ?? null,
    afterDeliveryId: place?.deliveryId ?? null,
    limit: limit + 1,
  };
  return { shape, values, limit };
}

/** `rows` were read with `limit` + 1: the extra one only says that another page follows the last one read. */
export function toCandidatePage(rows: readonly CandidateRecord[], limit: number): ErasureCandidatePage {
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    deliveryIds: page.filter((row) => Boolean(row.hit)).map((row) => row.delivery_id),
    scanned: page.length,
    next: rows.length > limit && last ? encodeCandidateCursor({ receivedAt: last.received_at, deliveryId: last.delivery_id }) : null,
  };
}

/** `now` as stored times are written (toISOString): they compare as text. */
export function dueParams(now: Date, limit: number): { readonly now: string; readonly limit: number } {
  checkBatchLimit(limit);
  if (!(now instanceof Date) || Number.isNaN(now.getTime())) throw new RangeError(`not a time: ${String(now)}`);
  return { now: now.toISOString(), limit };
}

export function checkStateIds(deliveryIds: readonly string[]): readonly string[] {
  if (deliveryIds.length > MAX_SELECTED_DELIVERY_IDS) {
    throw new RangeError(`at most ${MAX_SELECTED_DELIVERY_IDS} delivery ids, got ${deliveryIds.length}`);
  }
  return deliveryIds;
}

/** The table's CHECK constraint keeps `payload_state` to the port's values. */
export function toPayloadStates(rows: readonly PayloadStateRecord[]): ReadonlyMap<string, DeliveryPayloadState> {
  return new Map(
    rows.map((row) => [
      row.delivery_id,
      { state: row.payload_state as PayloadState, expiresAt: row.payload_expires_at, removedAt: row.payload_removed_at },
    ]),
  );
}

function checkBatchLimit(limit: number): void {
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAYLOAD_BATCH) {
    throw new RangeError(`limit must be an integer from 1 to ${MAX_PAYLOAD_BATCH}, got ${String(limit)}`);
  }
}

/** RFC 3339's date-time: YYYY-MM-DDThh:mm:ss[.fraction] then Z or ±hh:mm. */
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T([01]\d|2[0-3]):([0-5]\d):([0-5]\d)(\.\d{1,9})?(Z|[+-]([01]\d|2[0-3]):[0-5]\d)$/;

/**
 * The same instant as received_at is stored (toISOString, milliseconds and Z), so that times
 * written with an offset or without milliseconds compare as the instants they name. A day past
 * its month's end is refused, never rolled over into the next month as Date.parse would.
 */
function isoInstant(value: string, name: string): string {
  const match = typeof value === 'string' ? DATE_TIME.exec(value) : null;
  const [year, month, day] = (match?.slice(1, 4) ?? []).map(Number) as [number?, number?, number?];
  const valid =
    match !== null &&
    year !== undefined &&
    month !== undefined &&
    day !== undefined &&
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
  const time = valid ? new Date(value) : undefined;
  if (!time || Number.isNaN(time.getTime())) throw new RangeError(`${name} is not an RFC 3339 time: ${JSON.stringify(value)}`);
  return time.toISOString();
}
