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
  wrong_scheme: 'Wrong verification (signed for another scheme, or a bearer secret to a signed webhook)',
  missing_signature: 'Signature missing (a header the scheme needs is absent)',
  malformed_signature: 'Signature malformed',
  signature_mismatch: 'Signature does not match (wrong signing secret, or the body was changed)',
  timestamp_outside_tolerance: 'Signature too old or too new (its timestamp is outside the tolerance)',
  invalid_delivery_id: "Bad delivery id (the provider's delivery id)",
  invalid_event_type: 'Bad event type',
  handshake_answered: "Handshake answered (the provider's URL check: no run)",
  handshake_refused: 'Handshake refused (its proof did not match: check the secret or verify token)',
  payload_schema_mismatch: "Payload does not match the webhook's schema",
  filter_error: 'Accepted, but the filter failed to evaluate (the run follows)',
};

/** How a webhook's deliveries prove their sender, as the summary says it ("Verification: GitHub signature"). */
export const VERIFICATION_LABELS = {
  bearer: 'Bearer secret',
  standard_webhooks: 'Standard Webhooks signature',
  github: 'GitHub signature',
  stripe: 'Stripe signature',
  shopify: 'Shopify signature',
  gitlab: 'GitLab secret token',
  linear: 'Linear signature',
  sentry: 'Sentry signature',
  pagerduty: 'PagerDuty signature',
  zendesk: 'Zendesk signature',
  svix: 'Svix signature',
  slack: 'Slack signature',
  zoom: 'Zoom signature',
  discord: 'Discord signature (Ed25519)',
  twitch: 'Twitch EventSub signature',
  x: 'X signature',
  meta: 'Meta signature',
  microsoft_graph: 'Microsoft Graph clientState',
};

/** The scheme's words, or its code when this page does not know it. */
export function verificationLabel(scheme) {
  return Object.hasOwn(VERIFICATION_LABELS, scheme) ? VERIFICATION_LABELS[scheme] : String(scheme);
}

export function attemptReasonLabel(reason) {
  return ATTEMPT_REASONS[reason] ?? String(reason);
}

/**
 * The audit trail's actions in words: what was done (a succeeded entry) and what was tried (a
 * denied one). An action not listed shows as its code.
 */
const AUDIT_ACTIONS = {
  'webhook.enable': ['Webhook enabled', 'enable the webhook'],
  'webhook.rotate': ['Secret rotated', 'rotate the secret'],
  'webhook.disable': ['Webhook disabled', 'disable the webhook'],
  'webhook.block': ['Webhook blocked for safety', 'block the webhook'],
  'webhook.unblock': ['Webhook unblocked', 'unblock the webhook'],
  'webhook.hold': ['Runs held', 'hold the runs'],
  'webhook.release': ['Held runs released', 'release the held runs'],
  'webhook.retention': ['Payload retention changed', 'change the payload retention'],
  'webhook.view': ['Webhook viewed', 'view the webhook'],
  'webhook.deliveries': ['Deliveries listed', 'list the deliveries'],
  'webhook.attempts': ['Rejected attempts listed', 'list the rejected attempts'],
  'webhook.replays': ['Replays listed', 'list the replays'],
  'webhook.activity_hourly': ['Last 24 hours viewed', 'view the last 24 hours'],
  'routine.create': ['Routine created', 'create a routine'],
  'routine.update': ['Routine changed', 'change the routine'],
  'routine.list': ['Routines listed', 'list the routines'],
  'routine.view': ['Routine viewed', 'view the routine'],
  'account.connect': ['Account connected', 'connect an account'],
  'account.update': ['Account changed', 'change an account'],
  'account.set_primary': ['Primary account changed', 'change the primary account'],
  'account.list': ['Accounts listed', 'list the accounts'],
  'api_key.issue': ['API key issued', 'issue an API key'],
  'api_key.revoke': ['API key revoked', 'revoke an API key'],
  'api_key.list': ['API keys listed', 'list the API keys'],
  'audit.list': ['Audit trail read', 'read the audit trail'],
  'run.list': ['Runs listed', 'list the runs'],
  'run.view': ['Run viewed', 'view a run'],
  'parked.list': ['Parked deliveries listed', 'list the parked deliveries'],
  'parked.redispatch': ['Parked deliveries re-dispatched', 're-dispatch parked deliveries'],
  redispatch_parked: ['Parked deliveries re-dispatched', 're-dispatch parked deliveries'],
  'me.view': ['Signed in', 'sign in'],
  replay: ['Deliveries replayed', 'replay deliveries'],
  erase_payloads: ['Payloads erased', 'erase payloads'],
  'erasure.request': ['Erasure requested', 'erase payloads'],
  'erasure.view': ['Erasure read', 'read an erasure'],
  rebuild: ['Read models rebuilt', 'rebuild the read models'],
};

/** "Secret rotated" (done) or "rotate the secret" (tried). */
export function auditActionWords(action, { tried }) {
  const words = Object.hasOwn(AUDIT_ACTIONS, action) ? AUDIT_ACTIONS[action] : null;
  if (words === null) return tried ? `use ${action}` : String(action);
  return tried ? words[1] : words[0];
}

/** A delivery's payload: still kept, or removed past its retention or by an erasure. */
export const PAYLOAD_STATES = { kept: 'kept', expired: 'expired', erased: 'erased' };

/** The state's word, or its code when this page does not know it. */
export function payloadStateLabel(state) {
  return Object.hasOwn(PAYLOAD_STATES, state) ? PAYLOAD_STATES[state] : String(state);
}

export const API_KEY_STATUS = { live: 'Active', revoked: 'Revoked', expired: 'Expired' };
