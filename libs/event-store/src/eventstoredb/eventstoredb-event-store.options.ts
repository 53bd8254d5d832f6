import { assertPositiveInteger, withDefaults } from '../store-options.validation';
import { DEFAULT_RESUBSCRIBE_POLICY, type ResubscribePolicy } from './eventstoredb-catch-up.subscription';

export interface EventStoreDbEventStoreOptions {
  /**
   * Deadline of one call to the server (ms), and the longest a streaming read may wait for its
   * next event. Default 10000, like the client's defaultDeadline.
   */
  readonly operationTimeoutMs?: number;
  /** Events fetched per request by an unfiltered readAll. Default 256. */
  readonly readPageSize?: number;
  /**
   * The server's MaxAppendSize (bytes; EventStoreDB's default is 1 MiB): larger events are refused
   * here with InvalidAppendError instead of by the server. Default 1048576.
   */
  readonly maxAppendBytes?: number;
  /** How subscriptions come back after the server or the connection ended them. */
  readonly resubscribe?: Partial<ResubscribePolicy>;
}

const DEFAULTS = { operationTimeoutMs: 10_000, readPageSize: 256, maxAppendBytes: 1_048_576 } as const;

export type ResolvedOptions = Required<Omit<EventStoreDbEventStoreOptions, 'resubscribe'>> & { readonly resubscribe: ResubscribePolicy };

export function resolveOptions(options: EventStoreDbEventStoreOptions): ResolvedOptions {
  const { resubscribe, ...rest } = options;
  const resolved = withDefaults<Omit<EventStoreDbEventStoreOptions, 'resubscribe'>>(DEFAULTS, rest);
  assertPositiveInteger('operationTimeoutMs', resolved.operationTimeoutMs);
  assertPositiveInteger('readPageSize', resolved.readPageSize);
  assertPositiveInteger('maxAppendBytes', resolved.maxAppendBytes);
  const policy = withDefaults<Partial<ResubscribePolicy>>(DEFAULT_RESUBSCRIBE_POLICY, resubscribe ?? {});
  assertPositiveInteger('resubscribe.maxAttempts', policy.maxAttempts);
  return { ...resolved, resubscribe: policy };
}
