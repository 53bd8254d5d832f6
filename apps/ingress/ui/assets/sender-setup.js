// The secret panel after enable or rotate, per signed scheme: its title, the warning and the steps
// that tell the operator where the webhook URL (and the secret) go in the provider.
import { HANDSHAKE_SCHEMES, PROVIDER_NAMES, WHERE_TO_PASTE } from './sender-schemes.js';

/**
 * The secret panel after enable or rotate, per scheme: its title, the warning's lead and the rest,
 * and the steps that replace the bearer curl example. `made`: the service made the secret (shown
 * once); otherwise the operator pasted it and it is not shown again.
 */
export function senderSetup(scheme, made) {
  const kept = made
    ? [
        'This signing secret is shown only once.',
        'Paste it in the sender now. The server keeps it encrypted, only to check signatures, and never shows it again; ' +
          'this page keeps it only until you hide it or leave. If you lose it, rotate the secret.',
      ]
    : ['The secret you pasted is not shown again.', "It is kept encrypted, only to check the sender's signatures."];
  const url = 'Endpoint URL: the webhook URL above.';
  switch (scheme) {
    case 'standard_webhooks':
      return {
        title: made ? 'Copy the secret now: it is shown once' : 'Set up the sender',
        warning: kept,
        stepsLabel: "In the sender's endpoint settings",
        steps: [
          url,
          made ? "Signing secret: paste this secret in the sender's endpoint settings." : 'Signing secret: the one you pasted here.',
          "Each delivery runs for the default account. Its webhook-id is the idempotency key: the sender's retries of one message start one run.",
        ],
      };
    case 'github':
      return {
        title: 'Set up the webhook in GitHub',
        warning: kept,
        stepsLabel: "In GitHub: the repository's or organisation's Settings → Webhooks → Add webhook (or edit it)",
        steps: [
          'Payload URL: the webhook URL above.',
          'Content type: application/json.',
          'Secret: the one you pasted here.',
          'Choose the events to send, then save. Each delivery runs for the default account; a redelivery, or the same signed body sent again, starts no second run.',
        ],
      };
    case 'stripe':
      return {
        title: 'Set up the endpoint in Stripe',
        warning: kept,
        stepsLabel: 'In Stripe: Developers → Webhooks → the endpoint whose signing secret you pasted',
        steps: [
          'Endpoint URL: the webhook URL above.',
          'Choose the events to send. Each event runs for the default account; a retry of one event (same event id) starts no second run.',
        ],
      };
    case 'shopify':
      return {
        title: 'Set up the webhook in Shopify',
        warning: kept,
        stepsLabel: "In Shopify: the app's webhook subscriptions, or the store admin's Settings → Notifications → Webhooks",
        steps: [
          'URL: the webhook URL above.',
          'Format: JSON.',
          'Each delivery runs for the default account; a retry of one delivery (the same signed body) starts no second run.',
        ],
      };
    case 'gitlab':
      return {
        title: 'Set up the webhook in GitLab',
        warning: kept,
        stepsLabel: "In GitLab: the project's or group's Settings → Webhooks → Add new webhook (or edit it)",
        steps: [
          'URL: the webhook URL above.',
          'Secret token: the one you pasted here.',
          'Choose the triggers, then save. Each event runs for the default account; a retry of one event (the same Idempotency-Key) starts no second run.',
        ],
      };
    case 'linear':
      return {
        title: 'Set up the webhook in Linear',
        warning: kept,
        stepsLabel: 'In Linear: Settings → API → Webhooks → the webhook whose signing secret you pasted',
        steps: [
          'URL: the webhook URL above.',
          'Choose the data change events to send. Each event runs for the default account; a retry of one delivery (same Linear-Delivery) starts no second run.',
        ],
      };
    case 'sentry':
      return {
        title: 'Set up the integration in Sentry',
        warning: kept,
        stepsLabel: 'In Sentry: Settings → Developer Settings → the integration whose client secret you pasted',
        steps: [
          'Webhook URL: the webhook URL above.',
          'Choose the webhooks (issue, error, comment…) or turn on the alert rule action. Each request runs for the default account; a retry (the same signed body) starts no second run.',
        ],
      };
    case 'pagerduty':
      return {
        title: 'Set up the webhook in PagerDuty',
        warning: kept,
        stepsLabel: 'In PagerDuty: Integrations → Generic Webhooks (v3) → the subscription whose secret you pasted',
        steps: [
          'Webhook URL: the webhook URL above.',
          'Choose the event types. Each event runs for the default account; a retry of one event (same event id) starts no second run.',
        ],
      };
    case 'zendesk':
      return {
        title: 'Set up the webhook in Zendesk',
        warning: kept,
        stepsLabel: 'In Zendesk: Admin Center → Apps and integrations → Webhooks → the webhook whose secret you pasted',
        steps: [
          'Endpoint URL: the webhook URL above; request method POST, format JSON.',
          'Subscribe it to Zendesk events, or connect it to a trigger or automation. Each request runs for the default account; a retry of one invocation starts no second run.',
        ],
      };
    case 'svix':
      return {
        title: 'Set up the endpoint with the sender',
        warning: kept,
        stepsLabel: "In the sender's webhook settings (its Svix portal): the endpoint whose secret you pasted",
        steps: [
          'Endpoint URL: the webhook URL above.',
          "Each message runs for the default account. Its svix-id is the idempotency key: the sender's retries of one message start one run.",
        ],
      };
    default:
      return HANDSHAKE_SCHEMES.includes(scheme) ? handshakeSetup(scheme, kept) : null;
  }
}

/** The secret panel's steps for a handshake provider: where the URL goes, and that its handshake is answered here. */
function handshakeSetup(scheme, kept) {
  return {
    title: `Set up the webhook in ${PROVIDER_NAMES[scheme]}`,
    warning: kept,
    stepsLabel: `In ${PROVIDER_NAMES[scheme]}`,
    steps: [
      WHERE_TO_PASTE[scheme],
      'Its URL check is answered by this service with no run: the last one shows as Last handshake above, and in Rejected attempts.',
      'Each delivery runs for the default account; a retry of one delivery starts no second run.',
    ],
  };
}
