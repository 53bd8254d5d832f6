// Human words for the API's codes.

export const STATE_LABELS = {
  not_configured: 'Not configured',
  enabled: 'Enabled',
  disabled: 'Disabled',
  blocked: 'Blocked',
};

/** The badge's word and style: a blocked webhook is shown as Blocked whatever its state. */
export function badgeOf(state, blocked) {
  const key = blocked ? 'blocked' : state;
  return { text: STATE_LABELS[key] ?? String(state), className: `badge badge-${key in STATE_LABELS ? key : 'unknown'}` };
}

const ATTEMPT_REASONS = {
  wrong_secret: 'Wrong secret',
  webhook_disabled: 'Webhook disabled',
  payload_too_large: 'Too large',
  unsupported_media_type: 'Unsupported content type',
  unsupported_content_encoding: 'Compressed body (Content-Encoding)',
  rate_limited: 'Rate limited',
  invalid_account_email: 'Bad account (not an email address)',
  account_not_found: 'Bad account (no such active account or alias)',
  account_out_of_scope: "Bad account (outside the routine's scope)",
  account_override_not_allowed: 'Bad account (override not allowed)',
  account_header_requires_text: 'Bad account (header needs text/plain)',
  no_trigger_account: 'Bad account (no trigger account)',
  webhook_blocked: 'Blocked (safety)',
  invalid_json: 'Invalid JSON',
  invalid_encoding: 'Invalid text encoding',
  invalid_idempotency_key: 'Invalid idempotency key',
  idempotency_key_reused: 'Idempotency key reused with another request',
};

export function attemptReasonLabel(reason) {
  return ATTEMPT_REASONS[reason] ?? String(reason);
}
