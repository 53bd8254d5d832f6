import type { SignedScheme } from '@wts/contracts';

/** Standard Webhooks' secret form: `whsec_` and the key in standard base64. */
export const STANDARD_WEBHOOKS_SECRET_PREFIX = 'whsec_';
/** The key bytes of a Standard Webhooks secret this service makes (the standard asks for 24 to 64). */
export const STANDARD_WEBHOOKS_SECRET_BYTES = 32;
const STANDARD_KEY_BYTES = { min: 24, max: 64 } as const;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** Stripe endpoint secrets: `whsec_` and letters and digits. */
const STRIPE_SECRET = /^whsec_[A-Za-z0-9]{16,256}$/;
/** Slack signing secrets, X consumer secrets, Meta app secrets: letters and digits. */
const LETTERS_AND_DIGITS = /^[A-Za-z0-9]{16,256}$/;
/** Zoom secret tokens: letters, digits, `-` and `_` (URL-safe base64). */
const ZOOM_SECRET = /^[A-Za-z0-9_-]{16,256}$/;
/** Twitch EventSub secrets: the app's own choice, "an ASCII string of 10 to 100 characters". */
const TWITCH_SECRET = /^[\x20-\x7e]{10,100}$/;
/** A pasted GitHub secret: 16 to 1024 characters, none of them a control character. */
const GITHUB_SECRET_LENGTH = { min: 16, max: 1024 } as const;
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;
/** A Shopify app's client secret: `shpss_` and hex since 2020, 32 hex digits before; a store admin's webhook key: hex. */
const SHOPIFY_SECRET = /^(?:shpss_)?[A-Za-z0-9]{32,64}$/;
/** A GitLab secret token travels as a header value: 16 to 1024 printable ASCII characters (spaces inside allowed). */
const GITLAB_SECRET = /^[\x20-\x7e]{16,1024}$/;
/** A Linear webhook's signing secret: `lin_wh_` and letters and digits (its API keys are `lin_api_…`). */
const LINEAR_SECRET = /^lin_wh_[A-Za-z0-9_-]{16,128}$/;
/** A Sentry integration's client secret: 64 hex digits (its auth tokens are `sntrys_…`/`sntryu_…`). */
const SENTRY_SECRET = /^[0-9a-f]{64}$/;
/** A secret the provider generates and shows for pasting (PagerDuty, Zendesk): base64, base64url or hex, 16 to 256 characters. */
const GENERATED_SECRET = /^[A-Za-z0-9+/=_-]{16,256}$/;

/** A Standard Webhooks signing secret from random key bytes. */
export function standardWebhooksSecret(keyBytes: Uint8Array): string {
  if (keyBytes.length < STANDARD_KEY_BYTES.min || keyBytes.length > STANDARD_KEY_BYTES.max) {
    throw new Error(`a Standard Webhooks key has ${STANDARD_KEY_BYTES.min} to ${STANDARD_KEY_BYTES.max} bytes`);
  }
  return STANDARD_WEBHOOKS_SECRET_PREFIX + Buffer.from(keyBytes).toString('base64');
}

/**
 * What is wrong with a signing secret an operator pasted, in words they can act on; undefined when
 * it is usable. Surrounding whitespace is refused rather than trimmed: it is a copy-paste slip, and
 * the provider signs with the secret as it holds it.
 */
export function signingSecretProblem(scheme: SignedScheme, secret: string): string | undefined {
  if (secret.trim() !== secret) return 'the signing secret starts or ends with whitespace: paste it exactly as the provider shows it';
  switch (scheme) {
    case 'github':
      if (secret.length < GITHUB_SECRET_LENGTH.min || secret.length > GITHUB_SECRET_LENGTH.max) {
        return `a GitHub webhook secret must be ${GITHUB_SECRET_LENGTH.min} to ${GITHUB_SECRET_LENGTH.max} characters (set a long random one in GitHub)`;
      }
      return CONTROL_CHARACTER.test(secret) ? 'a GitHub webhook secret cannot contain control characters' : undefined;
    case 'stripe':
      return STRIPE_SECRET.test(secret)
        ? undefined
        : "a Stripe signing secret is the endpoint's whsec_… value (Developers → Webhooks → the endpoint → Signing secret)";
    case 'standard_webhooks':
      return isStandardWebhooksSecret(secret)
        ? undefined
        : `a Standard Webhooks secret is whsec_ and ${STANDARD_KEY_BYTES.min} to ${STANDARD_KEY_BYTES.max} bytes in base64 (leave it out and one is made)`;
    case 'svix':
      return isStandardWebhooksSecret(secret)
        ? undefined
        : "a Svix signing secret is the endpoint's whsec_… value (the sender's webhook settings, or the Svix app portal → the endpoint → Signing Secret)";
    case 'shopify':
      return SHOPIFY_SECRET.test(secret)
        ? undefined
        : "a Shopify secret is the app's client secret (shpss_…: Dev Dashboard or Partner Dashboard → the app → Settings → Client secret), or for a webhook made in the store admin, the key shown under Settings → Notifications → Webhooks";
    case 'gitlab':
      return GITLAB_SECRET.test(secret)
        ? undefined
        : 'a GitLab secret token must be 16 to 1024 printable ASCII characters (set a long random Secret token in GitLab: the project or group → Settings → Webhooks)';
    case 'linear':
      return LINEAR_SECRET.test(secret)
        ? undefined
        : "a Linear signing secret is the webhook's lin_wh_… value (Linear → Settings → API → Webhooks → the webhook → Signing secret), not an API key";
    case 'sentry':
      return SENTRY_SECRET.test(secret)
        ? undefined
        : "a Sentry secret is the integration's Client Secret, 64 hex digits (Sentry → Settings → Developer Settings → the integration → Credentials), not an auth token";
    case 'pagerduty':
      return GENERATED_SECRET.test(secret)
        ? undefined
        : 'a PagerDuty signing secret is the one shown once when the webhook subscription is made (Integrations → Generic Webhooks (v3) → the subscription), 16 to 256 characters of base64';
    case 'zendesk':
      return GENERATED_SECRET.test(secret)
        ? undefined
        : "a Zendesk signing secret is the webhook's secret (Admin Center → Apps and integrations → Webhooks → the webhook → Signing secret → Reveal secret), 16 to 256 characters of base64";
    case 'slack':
      return LETTERS_AND_DIGITS.test(secret)
        ? undefined
        : "a Slack signing secret is the app's Signing Secret (Basic Information → App Credentials), letters and digits";
    case 'zoom':
      return ZOOM_SECRET.test(secret) ? undefined : "a Zoom secret token is the app's Secret Token (Features → Access → Secret Token)";
    case 'twitch':
      return TWITCH_SECRET.test(secret)
        ? undefined
        : 'a Twitch EventSub secret is the transport.secret your app subscribed with: 10 to 100 ASCII characters';
    case 'x':
      return LETTERS_AND_DIGITS.test(secret)
        ? undefined
        : "an X consumer secret is the app's API Key Secret (Keys and tokens → Consumer Keys), letters and digits";
    case 'meta':
      return LETTERS_AND_DIGITS.test(secret)
        ? undefined
        : "a Meta app secret is the app's App Secret (App settings → Basic), letters and digits";
    case 'discord':
      return "a Discord webhook takes no secret: paste the application's public key in verification.public_key";
    case 'microsoft_graph':
      return "a Microsoft Graph webhook takes no secret: set the subscription's clientState in verification.client_state";
  }
}

/** `whsec_` and 24 to 64 key bytes in standard base64: the form Standard Webhooks and Svix senders take. */
function isStandardWebhooksSecret(secret: string): boolean {
  const body = secret.startsWith(STANDARD_WEBHOOKS_SECRET_PREFIX) ? secret.slice(STANDARD_WEBHOOKS_SECRET_PREFIX.length) : '';
  const bytes = BASE64.test(body) ? Buffer.from(body, 'base64').length : 0;
  return bytes >= STANDARD_KEY_BYTES.min && bytes <= STANDARD_KEY_BYTES.max;
}

/** Which schemes take a pasted secret: every provider's but Standard Webhooks (which makes one when none is given), Discord and Graph (which take none). */
export function signingSecretIsRequired(scheme: SignedScheme): boolean {
  return scheme !== 'standard_webhooks' && scheme !== 'discord' && scheme !== 'microsoft_graph';
}

/** What a sealed signing secret is bound to: its webhook and its own id (authenticated with the ciphertext). */
export function signingSecretBinding(webhookId: string, secretId: string): string {
  return `${webhookId}/${secretId}`;
}
