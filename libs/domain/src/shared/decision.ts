/** Codes only the dispatcher decides (a held or re-dispatched delivery judged as things now stand): a park's reason, no HTTP status. */
export const DISPATCH_ONLY_CODES = ['account_inactive', 'discarded_by_operator', 'payload_removed'] as const;
export type DispatchOnlyCode = (typeof DISPATCH_ONLY_CODES)[number];

export function isDispatchOnlyCode(code: string): code is DispatchOnlyCode {
  return (DISPATCH_ONLY_CODES as readonly string[]).includes(code);
}

/** Every code a decision can be rejected with. The edges map codes to statuses once. */
export type RejectionCode =
  // public endpoint
  | 'webhook_not_found'
  /** Discord's one refusal: its documentation asks for 401 on a bad signature (docs/signed-senders.md). */
  | 'webhook_unauthorized'
  | 'unsupported_media_type'
  | 'unsupported_content_encoding'
  | 'payload_too_large'
  | 'rate_limited'
  | 'invalid_json'
  | 'invalid_encoding'
  | 'invalid_account_email'
  | 'account_header_requires_text'
  | 'account_override_not_allowed'
  | 'account_not_found'
  | 'account_out_of_scope'
  | 'no_trigger_account'
  | 'invalid_idempotency_key'
  | 'idempotency_key_reused'
  | 'webhook_blocked'
  | 'invalid_delivery_id'
  | 'invalid_event_type'
  | 'payload_schema_mismatch'
  // the dispatcher only (a park's reason, never an HTTP answer): DispatchOnlyCode
  | 'account_inactive'
  | 'discarded_by_operator'
  | 'payload_removed'
  // admin
  | 'validation_failed'
  | 'invalid_filter'
  | 'invalid_payload_schema'
  | 'email_already_connected'
  | 'unknown_account'
  | 'unknown_scope_account'
  | 'routine_not_found'
  | 'default_account_invalid'
  | 'webhook_not_configured'
  | 'webhook_not_enabled'
  | 'webhook_already_enabled'
  | 'webhook_not_held'
  | 'hold_changed'
  | 'run_not_found'
  | 'invalid_cursor'
  | 'api_key_not_found'
  | 'api_key_limit_reached'
  | 'signing_secret_invalid'
  | 'erasure_not_found'
  | 'concurrent_modification';

export interface Rejection {
  readonly kind: 'rejected';
  readonly code: RejectionCode;
  readonly detail: string;
}

export interface Accepted<E> {
  readonly kind: 'accepted';
  readonly events: readonly E[];
}

export type Decision<E> = Accepted<E> | Rejection;

export function accept<E>(...events: E[]): Accepted<E> {
  return { kind: 'accepted', events };
}

export function reject(code: RejectionCode, detail: string): Rejection {
  return { kind: 'rejected', code, detail };
}

export function isRejection(value: unknown): value is Rejection {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'rejected';
}

/** A rejection carried through layers that can only throw (e.g. inside a Nest pipe). */
export class RejectionError extends Error {
  constructor(readonly rejection: Rejection) {
    super(`${rejection.code}: ${rejection.detail}`);
    this.name = 'RejectionError';
  }
}

/** The shape every decider has: pure decide and evolve, and an initial state. */
export interface Decider<Command, Event, State> {
  decide(command: Command, state: State): Decision<Event>;
  evolve(state: State, event: Event): State;
  initialState(): State;
}

/** The decider of a stream that holds one event: its state is that event's data (null before it), later events change nothing. */
export function singleEventDecider<Command, Event extends { readonly data: unknown }>(
  decide: (command: Command, state: Event['data'] | null) => Decision<Event>,
): Decider<Command, Event, Event['data'] | null> {
  return { decide, evolve: (state, event) => state ?? event.data, initialState: () => null };
}
