/// <reference types="jest" />
import type { GlobalPosition } from '@wts/event-store';
import { randomInt, randomUUID } from 'node:crypto';
import type {
  AttemptRow,
  AuditActor,
  AuditRow,
  DeliveryListRow,
  DeliveryRow,
  Page,
  PageRequest,
  ParkedRow,
  ProjectionChange,
  ReadModelStore,
  RunRow,
} from '../read-model.port';

/**
 * Builders and helpers of the read-model contract. Every test works under its own random
 * namespace (ids, routines, webhooks, checkpoint names), so a database shared by the tests of a
 * suite is fine; only `reset` (which clears every projected row) relies on tests running one at a time.
 */

export interface ReadModelContractSubject {
  readonly store: ReadModelStore;
  /** A second instance on the same database (another replica). Closed by `cleanup`. */
  readonly openAnother: () => Promise<ReadModelStore>;
  readonly cleanup: () => Promise<void>;
}

export type ReadModelContractFactory = () => Promise<ReadModelContractSubject>;

export interface ContractContext {
  readonly subject: ReadModelContractSubject;
  readonly store: ReadModelStore;
  readonly ns: string;
  /**
   * Added to the positions of rows that show up in the unfiltered parked listing: on a database
   * shared by a suite's tests, two rows at one position would be one place in the order.
   */
  readonly base: bigint;
}

export type Context = () => ContractContext;

export function newNamespace(): string {
  return randomUUID().slice(0, 8);
}

/** Random, far below 2^63, with room for a few million positions above it. */
export function newPositionBase(): bigint {
  return BigInt(randomInt(1, 2 ** 40)) << 22n;
}

export function at(commit: bigint | number, prepare: bigint | number = commit): GlobalPosition {
  return { commit: BigInt(commit), prepare: BigInt(prepare) };
}

export function deliveryRow(id: string, routineId: string, overrides: Partial<DeliveryRow> = {}): DeliveryRow {
  return {
    delivery_id: id,
    routine_id: routineId,
    webhook_id: `${routineId}-webhook`,
    run_id: `${id}-run`,
    received_at: '2024-05-01T12:00:00.000Z',
    trigger_account: { account_id: 'acct_1', email: 'owner@example.com' },
    content_type: 'application/json',
    idempotency_key: null,
    // Far from the years the payload tests select by (payload.suite.ts).
    payload_expires_at: '2124-05-01T12:00:00.000Z',
    ...overrides,
  };
}

/** A delivery as the listing shows it: its payload kept (as every delivery starts), with its replay count. */
export function listed(row: DeliveryRow, replays = 0): DeliveryListRow {
  return { ...row, replays, payload_state: 'kept', payload_removed_at: null };
}

export function runRow(id: string, routineId: string, overrides: Partial<RunRow> = {}): RunRow {
  return {
    run_id: id,
    routine_id: routineId,
    webhook_id: `${routineId}-webhook`,
    delivery_id: `${id}-delivery`,
    trigger_account: { account_id: 'acct_1', email: 'owner@example.com' },
    status: 'created',
    created_at: '2024-05-01T12:00:01.000Z',
    ...overrides,
  };
}

export function parkedRow(id: string, routineId: string | null, overrides: Partial<ParkedRow> = {}): ParkedRow {
  return {
    source_event_id: id,
    source_stream: `delivery-${id}`,
    source_type: 'DeliveryAccepted',
    delivery_id: routineId === null ? null : `${id}-delivery`,
    routine_id: routineId,
    error: 'routine snapshot missing',
    parked_at: '2024-05-01T12:00:02.000Z',
    ...overrides,
  };
}

export function attemptRow(webhookId: string, n: number, overrides: Partial<AttemptRow> = {}): AttemptRow {
  return {
    webhookId,
    reason: `wrong_secret #${n}`,
    at: `2024-05-01T12:00:${String(n % 60).padStart(2, '0')}.000Z`,
    sourceAddress: '203.0.113.7',
    ...overrides,
  };
}

/** A projected audit entry (an admin write, succeeded) by an OIDC user, on a routine. */
export function auditRow(entryId: string, overrides: Partial<AuditRow> = {}): AuditRow {
  return {
    entryId,
    at: '2024-05-01T12:00:00.000Z',
    actor: { kind: 'oidc', subject: 'sub-default', display: 'Default User', displayVerified: false },
    action: 'routine.update',
    targetType: 'routine',
    targetId: 'rtn_default',
    routineId: 'rtn_default',
    webhookId: null,
    outcome: 'succeeded',
    traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
    detail: null,
    sourceAddress: null,
    ...overrides,
  };
}

/**
 * Audit rows as a schema of version 3 held them (before `actor_display_verified`): an OIDC actor
 * whose display is an email nobody checked, a key, the bootstrap token, and a 401 naming nobody.
 * Both adapters' upgrade tests insert them (the SQL is the same in both).
 */
export const LEGACY_AUDIT_ROWS = `
  INSERT INTO rm_audit_entries (entry_id, at, actor_kind, actor_subject, actor_display, action, target_type, outcome) VALUES
    ('e1', '2024-05-01T12:00:01.000Z', 'oidc', 'sub-mallory', 'ceo@example.com', 'webhook.rotate', 'webhook', 'succeeded'),
    ('e2', '2024-05-01T12:00:02.000Z', 'api_key', 'key_1', 'CI bot', 'webhook.rotate', 'webhook', 'succeeded'),
    ('e3', '2024-05-01T12:00:03.000Z', 'bootstrap', 'bootstrap', 'bootstrap token', 'routine.create', 'routine', 'succeeded'),
    ('e4', '2024-05-01T12:00:04.000Z', NULL, NULL, NULL, 'audit.list', 'admin_api', 'denied')`;

/**
 * Deliveries as a schema of version 5 held them (before payload states): one of them by an
 * address in mixed case. Both adapters' upgrade tests insert them (the SQL is the same in both).
 */
export const VERSION_5_DELIVERIES = `
  INSERT INTO rm_deliveries VALUES
    ('d1', 'r1', 'w1', 'run1', '2024-05-01T12:00:00.000Z', 'a1', 'Alice@Example.COM', 'text/plain', NULL, 5, 5),
    ('d2', 'r1', 'w1', 'run2', '2024-05-01T12:00:01.000Z', 'a2', 'bob@example.com', 'text/plain', NULL, 6, 6)`;

/** LEGACY_AUDIT_ROWS' actors once upgraded, newest first. */
export const LEGACY_AUDIT_ACTORS: readonly (AuditActor | null)[] = [
  null,
  { kind: 'bootstrap', subject: 'bootstrap', display: 'bootstrap token', displayVerified: true },
  { kind: 'api_key', subject: 'key_1', display: 'CI bot', displayVerified: true },
  { kind: 'oidc', subject: 'sub-mallory', display: 'ceo@example.com', displayVerified: false },
];

/** A refused admin attempt, as the ingress records it. */
export function deniedRow(entryId: string, overrides: Partial<AuditRow> = {}): AuditRow {
  return auditRow(entryId, {
    action: 'POST /admin/routines',
    targetType: 'admin_api',
    targetId: null,
    routineId: null,
    outcome: 'denied',
    detail: 'insufficient_role: needs operator',
    sourceAddress: '203.0.113.1',
    ...overrides,
  });
}

export const delivery = (row: DeliveryRow, position: GlobalPosition): ProjectionChange => ({ kind: 'delivery', position, row });
export const audit = (row: AuditRow, position: GlobalPosition): ProjectionChange => ({ kind: 'audit', position, row });
export const webhookRoutine = (webhookId: string, routineId: string, position: GlobalPosition): ProjectionChange => ({
  kind: 'webhook_routine',
  position,
  row: { webhookId, routineId },
});
export const run = (row: RunRow, position: GlobalPosition): ProjectionChange => ({ kind: 'run', position, row });
export const parked = (row: ParkedRow, position: GlobalPosition): ProjectionChange => ({ kind: 'parked', position, row });

/** Bounds of the denied entries' retention no audit test reaches: the retention itself is tested in denied-access.suite. */
export const LOOSE_RETENTION = { perSource: 1_000, overall: 100_000 } as const;

/** Newest first: position DESC, commit then prepare (bigint, no precision lost). */
export function newestFirst(a: { position: GlobalPosition }, b: { position: GlobalPosition }): number {
  if (a.position.commit !== b.position.commit) return a.position.commit > b.position.commit ? -1 : 1;
  if (a.position.prepare !== b.position.prepare) return a.position.prepare > b.position.prepare ? -1 : 1;
  return 0;
}

/** Commits `changes` as the next batch of projection `name`, from its current checkpoint to `to`. */
export async function project(
  store: ReadModelStore,
  name: string,
  changes: readonly ProjectionChange[],
  to?: GlobalPosition,
): Promise<void> {
  const from = await store.loadCheckpoint(name);
  const last = [...changes].sort(newestFirst)[0]?.position;
  const target = to ?? last ?? from ?? at(0);
  expect(await store.commit(name, changes, from, target)).toBe(true);
}

export type Listing<T> = (page: PageRequest) => Promise<Page<T>>;

/** Follows nextCursor to the end; `between` runs after each page (to write while walking). */
export async function walk<T>(list: Listing<T>, limit: number, between?: (pageIndex: number) => Promise<void>): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  for (let pageIndex = 0; pageIndex < 10_000; pageIndex += 1) {
    const page = await list(cursor === undefined ? { limit } : { limit, cursor });
    expect(page.items.length).toBeLessThanOrEqual(limit);
    items.push(...page.items);
    if (page.nextCursor === null) return items;
    expect(page.items).toHaveLength(limit);
    cursor = page.nextCursor;
    await between?.(pageIndex);
  }
  throw new Error('pagination did not end');
}

/** Everything a listing has (pages of 1000). */
export function everything<T>(list: Listing<T>): Promise<T[]> {
  return walk(list, 1000);
}

/** `text` as a cursor's bytes are carried (base64url): a cursor of any content. */
export function asCursor(text: string): string {
  return Buffer.from(text).toString('base64url');
}

/**
 * Cursors no listing accepts, whatever its kind: empty, not base64url, `tooLong` characters, and
 * `issued` (a cursor a listing gave out) with a character more.
 */
export function malformedCursors(issued: string, tooLong: number): string[] {
  return ['', 'garbage', '!!!!', 'x'.repeat(tooLong), `${issued}=`, `${issued}.`];
}
