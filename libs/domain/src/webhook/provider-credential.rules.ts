import type { SignedScheme } from '@wts/contracts';
import { signingSecretProblem } from './signing-secret.rules';

/**
 * What a signed webhook's verification carries besides its scheme, as the enable and rotate bodies
 * name it: `secret` (the provider's signing secret or token), `verify_token` (Meta's, chosen by the
 * operator), `public_key` (Discord's, hex) and `client_state` (Microsoft Graph's).
 */
export interface ProviderCredentialInput {
  readonly secret?: string | undefined;
  readonly verifyToken?: string | undefined;
  readonly publicKey?: string | undefined;
  readonly clientState?: string | undefined;
}

type Field = keyof ProviderCredentialInput;

const FIELD_NAMES: Readonly<Record<Field, string>> = {
  secret: 'secret',
  verifyToken: 'verify_token',
  publicKey: 'public_key',
  clientState: 'client_state',
};

/** The fields each scheme takes, all required but Standard Webhooks' secret (made when absent). */
export const CREDENTIAL_FIELDS: Readonly<Record<SignedScheme, readonly Field[]>> = {
  standard_webhooks: ['secret'],
  github: ['secret'],
  stripe: ['secret'],
  shopify: ['secret'],
  gitlab: ['secret'],
  linear: ['secret'],
  sentry: ['secret'],
  pagerduty: ['secret'],
  zendesk: ['secret'],
  svix: ['secret'],
  slack: ['secret'],
  zoom: ['secret'],
  twitch: ['secret'],
  x: ['secret'],
  meta: ['secret', 'verifyToken'],
  discord: ['publicKey'],
  microsoft_graph: ['clientState'],
};

/** Meta's verify token: the operator's choice, pasted in Meta too; visible ASCII (it travels in a query string). */
const VERIFY_TOKEN = /^[\x21-\x7e]{8,256}$/;
/** Discord's application public key: 32 bytes of Ed25519, in hex. */
const PUBLIC_KEY = /^[0-9a-fA-F]{64}$/;
/** Graph's clientState: at most 128 characters (Graph's own limit); visible ASCII here. */
const CLIENT_STATE = /^[\x21-\x7e]{8,128}$/;

/**
 * What is wrong with a verification's fields for its scheme, in words the operator can act on
 * (`verification.` is the enable body's prefix: rotate's body names the fields at its top level);
 * undefined when they are usable. A field the scheme does not take is refused, not ignored: it
 * says the operator meant another scheme.
 */
export function credentialProblem(scheme: SignedScheme, input: ProviderCredentialInput, prefix = 'verification.'): string | undefined {
  const takes = CREDENTIAL_FIELDS[scheme];
  for (const field of Object.keys(FIELD_NAMES) as Field[]) {
    if (input[field] !== undefined && !takes.includes(field)) {
      return field === 'secret'
        ? signingSecretProblem(scheme, input.secret ?? '')
        : `${prefix}${FIELD_NAMES[field]} is not for ${scheme} verification (it takes ${takes.map((name) => prefix + FIELD_NAMES[name]).join(' and ')})`;
    }
  }
  for (const field of takes) {
    const value = input[field];
    if (value === undefined) {
      if (scheme === 'standard_webhooks') continue;
      return field === 'secret'
        ? `${scheme} verification needs the provider's signing secret in ${prefix}secret`
        : `${scheme} verification needs ${prefix}${FIELD_NAMES[field]}`;
    }
    const problem = fieldProblem(scheme, field, value);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

function fieldProblem(scheme: SignedScheme, field: Field, value: string): string | undefined {
  switch (field) {
    case 'secret':
      return signingSecretProblem(scheme, value);
    case 'verifyToken':
      return VERIFY_TOKEN.test(value)
        ? undefined
        : 'a Meta verify token is the string you type in the webhook\'s "Verify token" field: 8 to 256 visible ASCII characters, no spaces';
    case 'publicKey':
      return PUBLIC_KEY.test(value)
        ? undefined
        : "a Discord public key is the application's Public Key (General Information): 64 hexadecimal digits";
    case 'clientState':
      return CLIENT_STATE.test(value)
        ? undefined
        : "a Microsoft Graph clientState is the subscription's clientState: 8 to 128 visible ASCII characters, no spaces";
  }
}

/**
 * The one string sealed for a credential (the signing secret stream holds one string per secret
 * id): the secret, Discord's public key (lower-case hex) or Graph's clientState as they are; Meta's
 * two values as JSON. Only for fields credentialProblem accepted.
 */
export function sealedCredential(scheme: SignedScheme, input: ProviderCredentialInput): string {
  switch (scheme) {
    case 'meta':
      return JSON.stringify({ secret: input.secret ?? '', verify_token: input.verifyToken ?? '' });
    case 'discord':
      return (input.publicKey ?? '').toLowerCase();
    case 'microsoft_graph':
      return input.clientState ?? '';
    default:
      return input.secret ?? '';
  }
}

/** Meta's sealed credential read back: the app secret and the verify token; undefined when it is not in that form. */
export function metaCredentialOf(sealed: string): { readonly secret: string; readonly verifyToken: string } | undefined {
  try {
    const parsed: unknown = JSON.parse(sealed);
    if (typeof parsed !== 'object' || parsed === null) return undefined;
    const { secret, verify_token: verifyToken } = parsed as { secret?: unknown; verify_token?: unknown };
    return typeof secret === 'string' && typeof verifyToken === 'string' && secret !== '' && verifyToken !== ''
      ? { secret, verifyToken }
      : undefined;
  } catch {
    return undefined;
  }
}
