// The verification schemes the Config page offers and, per scheme, the texts of its credential
// fields: which schemes exist, which answer a handshake, each provider's name and where its URL
// goes, and what the enable form asks for. Data only: verification.js, sender-setup.js and
// sender-rotate-texts.js use it.

/** Every scheme, bearer first: the list in @wts/contracts, served as verification-schemes.js (ui-assets.ts). */
export { VERIFICATION_SCHEMES as SCHEMES } from './verification-schemes.js';

/** The schemes whose provider verifies the URL with a handshake the service answers (docs/signed-senders.md). */
export const HANDSHAKE_SCHEMES = ['slack', 'zoom', 'discord', 'twitch', 'x', 'meta', 'microsoft_graph'];

/** The provider's name as the page says it. */
export const PROVIDER_NAMES = {
  slack: 'Slack',
  zoom: 'Zoom',
  discord: 'Discord',
  twitch: 'Twitch',
  x: 'X',
  meta: 'Meta',
  microsoft_graph: 'Microsoft Graph',
};

/** Where the webhook URL goes in each provider, and which handshake it answers there: one line each. */
export const WHERE_TO_PASTE = {
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
export const SECRET_FIELD = {
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
export const VERIFY_TOKEN_FIELD = {
  missing: 'Type the verify token you set (or will set) in Meta: its subscription check is answered only with it.',
};
