import { isDispatchOnlyCode, type DispatchOnlyCode, type RejectionCode, type SchemaError } from '@wts/domain';

/** Codes the edge adds to the domain's: auth, store health, routing, the unexpected. */
export type ProblemCode =
  | Exclude<RejectionCode, DispatchOnlyCode>
  | 'unauthorized'
  | 'insufficient_role'
  | 'store_unavailable'
  | 'store_outcome_unknown'
  | 'read_model_unavailable'
  | 'identity_provider_unavailable'
  | 'not_found'
  | 'method_not_allowed'
  | 'internal_error';

export const STATUS_BY_CODE: Record<ProblemCode, number> = {
  webhook_not_found: 404,
  webhook_unauthorized: 401,
  unsupported_media_type: 415,
  unsupported_content_encoding: 415,
  payload_too_large: 413,
  rate_limited: 429,
  invalid_json: 400,
  invalid_encoding: 400,
  invalid_account_email: 400,
  account_header_requires_text: 400,
  account_override_not_allowed: 400,
  account_not_found: 400,
  account_out_of_scope: 400,
  no_trigger_account: 400,
  invalid_idempotency_key: 400,
  idempotency_key_reused: 422,
  webhook_blocked: 403,
  invalid_delivery_id: 400,
  invalid_event_type: 400,
  payload_schema_mismatch: 400,
  invalid_filter: 400,
  invalid_payload_schema: 400,
  validation_failed: 400,
  email_already_connected: 409,
  unknown_account: 404,
  unknown_scope_account: 400,
  routine_not_found: 404,
  default_account_invalid: 400,
  webhook_not_configured: 409,
  webhook_not_enabled: 409,
  webhook_already_enabled: 409,
  webhook_not_held: 409,
  hold_changed: 409,
  run_not_found: 404,
  invalid_cursor: 400,
  concurrent_modification: 409,
  api_key_not_found: 404,
  erasure_not_found: 404,
  api_key_limit_reached: 409,
  signing_secret_invalid: 400,
  unauthorized: 401,
  insufficient_role: 403,
  store_unavailable: 503,
  store_outcome_unknown: 503,
  read_model_unavailable: 503,
  identity_provider_unavailable: 503,
  not_found: 404,
  method_not_allowed: 405,
  internal_error: 500,
};

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/** The reason phrase of a status as RFC 9110 names it: the problem's title and the status line's text. */
export function reasonPhrase(status: number): string {
  return TITLES[status] ?? 'Error';
}

export interface Problem {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly code: ProblemCode;
  readonly detail?: string;
  /** Admin validation: one text per problem. payload_schema_mismatch: the first reasons, each `{instance_path, keyword, message}`. */
  readonly errors?: readonly string[] | readonly SchemaError[];
}

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/**
 * RFC 9457 problem details with a stable snake_case code. A code only the dispatcher decides (a
 * park's reason) never reaches HTTP; were one to, it is answered as the unexpected error it is.
 */
export function problem(
  given: ProblemCode | DispatchOnlyCode,
  detail?: string,
  errors?: readonly string[] | readonly SchemaError[],
): Problem {
  const code: ProblemCode = isDispatchOnlyCode(given) ? 'internal_error' : given;
  const status = STATUS_BY_CODE[code];
  return {
    type: `urn:webhook-trigger:problem:${code}`,
    title: reasonPhrase(status),
    status,
    code,
    ...(detail === undefined ? {} : { detail }),
    ...(errors === undefined ? {} : { errors }),
  };
}

/**
 * The one answer for unknown endpoint, disabled endpoint and wrong or missing secret: a
 * constant, so every byte is identical whatever the cause.
 */
export const WEBHOOK_NOT_FOUND_BODY = JSON.stringify(problem('webhook_not_found'));

/**
 * The one answer to a Discord-signed request that is refused, whatever the cause (unknown,
 * disabled or other-scheme endpoint, bad signature): Discord's documentation asks for a 401 and
 * checks it by sending bad signatures. A constant too, so nothing in it depends on the cause.
 */
export const WEBHOOK_UNAUTHORIZED_BODY = JSON.stringify(problem('webhook_unauthorized'));
