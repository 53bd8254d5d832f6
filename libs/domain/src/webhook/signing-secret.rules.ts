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
    case 'standard_webhooks': {
      const body = secret.startsWith(STANDARD_WEBHOOKS_SECRET_PREFIX) ? secret.slice(STANDARD_WEBHOOKS_SECRET_PREFIX.length) : '';
      const bytes = BASE64.test(body) ? Buffer.from(body, 'base64').length : 0;
      return bytes >= STANDARD_KEY_BYTES.min && bytes <= STANDARD_KEY_BYTES.max
        ? undefined
        : `a Standard Webhooks secret is whsec_ and ${STANDARD_KEY_BYTES.min} to ${STANDARD_KEY_BYTES.max} bytes in base64 (leave it out and one is made)`;
    }
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

/** Which schemes take a pasted secret, and which make one when none is given (or take none: Discord, Graph). */
export function signingSecretIsRequired(scheme: SignedScheme): boolean {
  return scheme !== 'standard_webhooks' && scheme !== 'discord' && scheme !== 'microsoft_graph';
}

/** What a sealed signing secret is bound to: its webhook and its own id (authenticated with the ciphertext). */
export function signingSecretBinding(webhookId: string, secretId: string): string {
  return `${webhookId}/${secretId}`;
}
