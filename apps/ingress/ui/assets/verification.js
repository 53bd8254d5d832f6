// How a webhook's deliveries prove their sender: the enable form's choice (bearer secret, Standard
// Webhooks, GitHub, Stripe, Shopify, GitLab, Linear, Sentry, PagerDuty, Zendesk, Svix, and the
// providers with a URL-verification handshake: Slack, Zoom, Discord, Twitch, X, Meta, Microsoft
// Graph), its credential fields, and what each scheme means for the rest of the page (the override,
// the secret panel's steps, rotating, the test delivery, the last handshake). A pasted secret lives
// in its field until the server has it, and nowhere else.
import { byId, setError, show } from './dom.js';

export const SCHEMES = [
  'bearer',
  'standard_webhooks',
  'github',
  'stripe',
  'shopify',
  'gitlab',
  'linear',
  'sentry',
  'pagerduty',
  'zendesk',
  'svix',
  'slack',
  'zoom',
  'discord',
  'twitch',
  'x',
  'meta',
  'microsoft_graph',
];

/** The schemes whose provider verifies the URL with a handshake the service answers (docs/signed-senders.md). */
export const HANDSHAKE_SCHEMES = ['slack', 'zoom', 'discord', 'twitch', 'x', 'meta', 'microsoft_graph'];

/** The provider's name as the page says it. */
const PROVIDER_NAMES = {
  slack: 'Slack',
  zoom: 'Zoom',
  discord: 'Discord',
  twitch: 'Twitch',
  x: 'X',
  meta: 'Meta',
  microsoft_graph: 'Microsoft Graph',
};

/** Where the webhook URL goes in each provider, and which handshake it answers there: one line each. */
const WHERE_TO_PASTE = {
  slack: "In Slack: your app → Event Subscriptions → Request URL. Slack's url_verification is answered here.",
  zoom: 'In Zoom: your app → Features → Access → Event Subscriptions → Event notification endpoint URL, then Validate.',
  discord:
    "In Discord: your application → Webhooks → Endpoint URL (or General Information → Interactions Endpoint URL). Discord's PING is answered here.",
  twitch:
    "In Twitch: the transport.callback of your EventSub subscription (with the same transport.secret). Twitch's challenge is answered here.",
  x: "In X: register the URL as your Account Activity webhook (POST /2/webhooks). X's CRC is answered here.",
  meta: 'In Meta: your app → Webhooks (or WhatsApp → Configuration) → Callback URL, with the same Verify token.',
  microsoft_graph:
    "In Microsoft Graph: the notificationUrl of your subscription, with the same clientState. Graph's validationToken is answered here.",
};

/** What the enable form asks for, per signed scheme: whether a secret must be pasted, and how to say so. */
const SECRET_FIELD = {
  standard_webhooks: {
    label: 'Signing secret (optional)',
    help: "Leave empty to have one made (shown once). Or paste the sender's own: whsec_ and 24 to 64 bytes in base64.",
    required: false,
  },
  github: {
    label: 'GitHub webhook secret',
    help: 'The secret you set (or will set) in the GitHub webhook: 16 characters or more. Kept encrypted, never shown again.',
    required: true,
    missing: 'Paste the GitHub webhook secret: GitHub signs every delivery with it.',
  },
  stripe: {
    label: 'Stripe signing secret',
    help: "The endpoint's whsec_… value in Stripe (Developers → Webhooks → the endpoint → Signing secret). Kept encrypted, never shown again.",
    required: true,
    missing: "Paste the Stripe endpoint's signing secret (whsec_…): Stripe signs every event with it.",
  },
  shopify: {
    label: 'Shopify client secret',
    help: "The app's client secret (shpss_…: the app's Settings in the Dev Dashboard or Partner Dashboard), or the key the store admin shows under Settings → Notifications → Webhooks. Kept encrypted, never shown again.",
    required: true,
    missing: "Paste the Shopify app's client secret: Shopify signs every delivery with it.",
  },
  gitlab: {
    label: 'GitLab secret token',
    help: 'The Secret token you set (or will set) in the GitLab webhook: 16 characters or more. Kept encrypted, never shown again.',
    required: true,
    missing: 'Paste the GitLab secret token: GitLab sends it with every delivery.',
  },
  linear: {
    label: 'Linear signing secret',
    help: "The webhook's lin_wh_… signing secret (Linear → Settings → API → Webhooks → the webhook). Kept encrypted, never shown again.",
    required: true,
    missing: "Paste the Linear webhook's signing secret (lin_wh_…): Linear signs every event with it.",
  },
  sentry: {
    label: 'Sentry client secret',
    help: "The integration's Client Secret, 64 hex digits (Settings → Developer Settings → the integration → Credentials). Kept encrypted, never shown again.",
    required: true,
    missing: "Paste the Sentry integration's client secret: Sentry signs every request with it.",
  },
  pagerduty: {
    label: 'PagerDuty signing secret',
    help: 'The secret PagerDuty shows once when the webhook subscription is made (Integrations → Generic Webhooks (v3)). Kept encrypted, never shown again.',
    required: true,
    missing: "Paste the PagerDuty subscription's signing secret: PagerDuty signs every event with it.",
  },
  zendesk: {
    label: 'Zendesk signing secret',
    help: "The webhook's signing secret (Admin Center → Apps and integrations → Webhooks → the webhook → Reveal secret). Kept encrypted, never shown again.",
    required: true,
    missing: "Paste the Zendesk webhook's signing secret: Zendesk signs every request with it.",
  },
  svix: {
    label: 'Svix signing secret',
    help: "The endpoint's whsec_… signing secret, from the sender's webhook settings (its Svix portal). Kept encrypted, never shown again.",
    required: true,
    missing: "Paste the endpoint's signing secret (whsec_…): the sender signs every message with it.",
  },
  slack: {
    label: 'Slack signing secret',
    help: "Your app's Signing Secret (Basic Information → App Credentials). Kept encrypted, never shown again.",
    required: true,
    missing: 'Paste the Slack signing secret: Slack signs every request with it.',
  },
  zoom: {
    label: 'Zoom secret token',
    help: "Your app's Secret Token (Features → Access). Kept encrypted, never shown again.",
    required: true,
    missing: "Paste the Zoom app's Secret Token: Zoom signs every event and its URL validation with it.",
  },
  discord: {
    label: 'Discord public key',
    help: "Your application's Public Key (General Information): 64 hexadecimal digits.",
    required: true,
    missing: "Paste the application's public key: Discord's signatures are checked with it.",
    field: 'public_key',
  },
  twitch: {
    label: 'Twitch EventSub secret',
    help: 'The transport.secret your app subscribes with: 10 to 100 ASCII characters. Kept encrypted, never shown again.',
    required: true,
    missing: "Paste the subscription's secret: Twitch signs every message with it.",
  },
  x: {
    label: 'X consumer secret',
    help: "Your app's API Key Secret (Keys and tokens → Consumer Keys). Kept encrypted, never shown again.",
    required: true,
    missing: "Paste the app's consumer secret: X signs every event and answers its CRC with it.",
  },
  meta: {
    label: 'Meta app secret',
    help: "Your app's App Secret (App settings → Basic). Kept encrypted, never shown again.",
    required: true,
    missing: "Paste the app's App Secret: Meta signs every event with it.",
  },
  microsoft_graph: {
    label: 'Microsoft Graph clientState',
    help: 'The clientState your subscription sets (8 to 128 characters, no spaces): every notification carries it. Kept encrypted, never shown again.',
    required: true,
    missing: "Paste the subscription's clientState: it is what tells Graph's notifications from anyone else's.",
    field: 'client_state',
  },
};

/** Meta's second field: the verify token its subscription check carries. */
const VERIFY_TOKEN_FIELD = {
  missing: 'Type the verify token you set (or will set) in Meta: its subscription check is answered only with it.',
};

/** Rotating a webhook whose secret is the provider's: the new one is pasted (every provider's scheme). */
const ROTATE_FORM = {
  github: {
    title: 'Rotate the GitHub webhook secret',
    hint:
      'Paste a new secret here, then set the same one in the GitHub webhook. The current secret stops working here at once: ' +
      'deliveries GitHub still signs with it get 404 until GitHub has the new one.',
    label: 'New GitHub webhook secret',
    help: '16 characters or more. Kept encrypted, never shown again.',
    missing: 'Paste the new GitHub webhook secret.',
  },
  stripe: {
    title: 'Rotate the Stripe signing secret',
    hint:
      "Roll the endpoint's signing secret in Stripe first (Developers → Webhooks → the endpoint → Roll secret), then paste the new one here. " +
      'From then on only the new secret is accepted here; while Stripe still signs with both, no event is lost.',
    label: 'New Stripe signing secret',
    help: "The endpoint's new whsec_… value. Kept encrypted, never shown again.",
    missing: "Paste the endpoint's new Stripe signing secret (whsec_…).",
  },
  shopify: {
    title: 'Rotate the Shopify client secret',
    hint:
      "Rotate the app's client secret in Shopify first, then paste the new one here. Shopify can take up to an hour to sign with it: " +
      'deliveries still signed with the old one get 404 here, and Shopify retries them.',
    label: 'New Shopify client secret',
    help: "The app's new client secret. Kept encrypted, never shown again.",
    missing: "Paste the app's new Shopify client secret.",
  },
  gitlab: {
    title: 'Rotate the GitLab secret token',
    hint:
      'Paste a new token here, then set the same one as the Secret token of the GitLab webhook. The current token stops working here at once: ' +
      'deliveries GitLab still sends with it get 404 until GitLab has the new one.',
    label: 'New GitLab secret token',
    help: '16 characters or more. Kept encrypted, never shown again.',
    missing: 'Paste the new GitLab secret token.',
  },
  linear: {
    title: 'Rotate the Linear signing secret',
    hint: "Rotate the webhook's signing secret in Linear first (the webhook's page), then paste the new one here. Events signed with the old one get 404 here.",
    label: 'New Linear signing secret',
    help: 'The new lin_wh_… value. Kept encrypted, never shown again.',
    missing: "Paste the Linear webhook's new signing secret (lin_wh_…).",
  },
  sentry: {
    title: 'Rotate the Sentry client secret',
    hint: "Rotate the integration's client secret in Sentry first (Settings → Developer Settings → the integration), then paste the new one here.",
    label: 'New Sentry client secret',
    help: '64 hex digits. Kept encrypted, never shown again.',
    missing: "Paste the integration's new Sentry client secret.",
  },
  pagerduty: {
    title: 'Rotate the PagerDuty signing secret',
    hint: 'Once PagerDuty has given the subscription a new secret, paste it here. From then on only the new secret is accepted here; while PagerDuty signs with both, no event is lost.',
    label: 'New PagerDuty signing secret',
    help: 'Kept encrypted, never shown again.',
    missing: "Paste the subscription's new PagerDuty signing secret.",
  },
  zendesk: {
    title: 'Rotate the Zendesk signing secret',
    hint: "Reset the webhook's signing secret in Zendesk first, then paste the new one here. Requests signed with the old one get 404 here.",
    label: 'New Zendesk signing secret',
    help: 'Kept encrypted, never shown again.',
    missing: "Paste the Zendesk webhook's new signing secret.",
  },
  svix: {
    title: 'Rotate the Svix signing secret',
    hint:
      "Rotate the endpoint's secret in the sender's portal first, then paste the new one here. From then on only the new secret is accepted here; " +
      'while the sender signs with both, no message is lost.',
    label: 'New Svix signing secret',
    help: "The endpoint's new whsec_… value. Kept encrypted, never shown again.",
    missing: "Paste the endpoint's new signing secret (whsec_…).",
  },
  ...Object.fromEntries(
    HANDSHAKE_SCHEMES.map((scheme) => [
      scheme,
      {
        title: `Rotate the ${PROVIDER_NAMES[scheme]} credential`,
        hint:
          `Paste the new ${SECRET_FIELD[scheme].label.replace(/^\S+ /, '')} here, then set the same one in ${PROVIDER_NAMES[scheme]}. ` +
          'The current one stops working here at once: requests still proved with it get the one refusal until the provider has the new one.',
        label: `New ${SECRET_FIELD[scheme].label}`,
        help: SECRET_FIELD[scheme].help,
        missing: SECRET_FIELD[scheme].missing,
        field: SECRET_FIELD[scheme].field ?? 'secret',
        verifyToken: scheme === 'meta',
      },
    ]),
  ),
};

/** The test delivery, for a signed webhook: the page never holds the secret after it is shown, so it cannot sign. */
const TEST_ELSEWHERE = {
  ...Object.fromEntries(
    HANDSHAKE_SCHEMES.map((scheme) => [
      scheme,
      `Send a test from ${PROVIDER_NAMES[scheme]} (its handshake first: the last one shows above): the page cannot prove requests for ${PROVIDER_NAMES[scheme]}.`,
    ]),
  ),
  standard_webhooks: 'Send a test from your sender: the page does not keep the signing secret, so it cannot sign a request for it.',
  github:
    'Send a test from GitHub (the webhook\'s "Recent Deliveries" → Redeliver, or any event you chose): the page cannot sign requests for GitHub.',
  stripe:
    'Send a test event from Stripe (for instance with the Stripe CLI: stripe trigger payment_intent.succeeded): the page cannot sign requests for Stripe.',
  shopify:
    'Send a test from Shopify (the Shopify CLI: shopify app webhook trigger, or a real event in a development store): the page cannot sign requests for Shopify.',
  gitlab: "Send a test from GitLab (the webhook's Test button in Settings → Webhooks): the page does not keep the secret token.",
  linear: 'Send a test from Linear (make a change the webhook listens to): the page cannot sign requests for Linear.',
  sentry: 'Send a test from Sentry (an issue or alert the integration is subscribed to): the page cannot sign requests for Sentry.',
  pagerduty: "Send a test from PagerDuty (the subscription's Send Test Event): the page cannot sign requests for PagerDuty.",
  zendesk: "Send a test from Zendesk (the webhook's Test webhook in Admin Center): the page cannot sign requests for Zendesk.",
  svix: "Send a test from the sender (its Svix portal's Testing tab): the page cannot sign requests for it.",
};

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

/** The one-line "where to paste this" of a handshake provider, or null. */
export function whereToPaste(scheme) {
  return Object.hasOwn(WHERE_TO_PASTE, scheme) ? WHERE_TO_PASTE[scheme] : null;
}

/** Whether the scheme's provider verifies the URL with a handshake. */
export function hasHandshake(scheme) {
  return HANDSHAKE_SCHEMES.includes(scheme);
}

export function isSigned(scheme) {
  return scheme !== 'bearer' && SCHEMES.includes(scheme);
}

/** The webhook's scheme as loaded (bearer until it says otherwise). */
export function schemeOf(webhook) {
  return webhook?.verification?.scheme ?? 'bearer';
}

/** Whether rotating asks for the provider's new credential (every scheme but bearer and Standard Webhooks). */
export function rotateTakesSecret(scheme) {
  return Object.hasOwn(ROTATE_FORM, scheme);
}

export function rotateFormText(scheme) {
  return ROTATE_FORM[scheme];
}

/** What the test delivery section says for a signed webhook, or null for a bearer one. */
export function testElsewhere(scheme) {
  return Object.hasOwn(TEST_ELSEWHERE, scheme) ? TEST_ELSEWHERE[scheme] : null;
}

// ------------------------------------------------------------------ the enable form's choice

/** The scheme chosen in the enable form. */
export function chosenScheme() {
  return document.querySelector('input[name="scheme"]:checked')?.value ?? 'bearer';
}

/** The override as the operator left it while a signed scheme forced it off, restored when they go back to bearer. */
let overrideWanted = false;

/** Shows the secret field and locks the override to what the chosen scheme allows. */
function applyScheme() {
  const scheme = chosenScheme();
  const field = SECRET_FIELD[scheme];
  show(byId('signing-secret-field'), field !== undefined);
  const input = byId('signing-secret');
  if (field) {
    byId('signing-secret-label').textContent = field.label;
    byId('signing-secret-help').textContent = field.help;
    input.required = field.required;
  } else input.required = false;
  show(byId('verify-token-field'), scheme === 'meta');
  byId('verify-token').required = scheme === 'meta';
  setSecretProblem('');

  const override = byId('override');
  const signed = isSigned(scheme);
  if (signed && !override.disabled) overrideWanted = override.checked;
  if (!signed && override.disabled) override.checked = overrideWanted;
  if (signed) override.checked = false;
  override.disabled = signed;
  show(byId('override-signed'), signed);
}

/** Resets the choice to `scheme` (the webhook's, when enabling again), with an empty secret field. */
export function resetVerification(scheme) {
  const radio = document.getElementById(`scheme-${SCHEMES.includes(scheme) ? scheme : 'bearer'}`);
  if (radio) radio.checked = true;
  byId('signing-secret').value = '';
  byId('verify-token').value = '';
  overrideWanted = byId('override').checked;
  byId('override').disabled = false;
  applyScheme();
}

/**
 * The `verification` member of the enable request (undefined for bearer, the spec's default), or
 * `{missing, input}` when a required field was left empty. Discord's public key and Graph's
 * clientState go in their own members; Meta's verify token beside the App Secret.
 */
export function verificationRequest() {
  const scheme = chosenScheme();
  if (!isSigned(scheme)) return { verification: undefined };
  const secret = byId('signing-secret').value;
  const field = SECRET_FIELD[scheme];
  if (secret === '' && field.required) return { missing: field.missing, input: 'signing-secret' };
  const verifyToken = byId('verify-token').value;
  if (scheme === 'meta' && verifyToken === '') return { missing: VERIFY_TOKEN_FIELD.missing, input: 'verify-token' };
  const verification = secret === '' ? { scheme } : { scheme, [field.field ?? 'secret']: secret };
  return { verification: scheme === 'meta' ? { ...verification, verify_token: verifyToken } : verification };
}

/** A problem with the pasted secret, shown under its field (empty: none). */
export function setSecretProblem(message) {
  setError(byId('signing-secret-error'), message);
  const input = byId('signing-secret');
  if (message) input.setAttribute('aria-invalid', 'true');
  else input.removeAttribute('aria-invalid');
}

/** Drops a pasted secret (and Meta's verify token) from the page once the server has it. */
export function forgetPastedSecret() {
  byId('signing-secret').value = '';
  byId('verify-token').value = '';
}

export function wireVerificationChoice() {
  for (const scheme of SCHEMES) byId(`scheme-${scheme}`).addEventListener('change', applyScheme);
  byId('override').addEventListener('change', () => {
    overrideWanted = byId('override').checked;
  });
  window.addEventListener('pagehide', forgetPastedSecret);
}
