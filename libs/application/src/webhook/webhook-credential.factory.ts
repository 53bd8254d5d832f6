import type { SignedScheme } from '@wts/contracts';
import {
  STANDARD_WEBHOOKS_SECRET_BYTES,
  credentialProblem,
  digestSecret,
  idFromBytes,
  reject,
  sealedCredential,
  standardWebhooksSecret,
  type ProviderCredentialInput,
  type Rejection,
  type WebhookCredential,
} from '@wts/domain';
import type { RandomSource } from '../shared/runtime.port';
import type { SecretSealer } from '../signing/secret.sealer';
import type { VerificationInput } from './webhook-admin.service';

/** A credential ready to decide on, with the secret to show (null: pasted) and, when signed, the secret to seal. */
export interface NewCredential {
  readonly credential: WebhookCredential;
  readonly shown: string | null;
  readonly signing?: SigningSecretToSeal;
}

/** A signing secret made or pasted, and the sealer it is to be sealed with. */
export interface SigningSecretToSeal {
  readonly secretId: string;
  readonly secret: string;
  readonly sealer: SecretSealer;
}

/**
 * A new credential for `verification`: bearer's secret made (its digest kept, the secret shown
 * once); a signed scheme's checked (credentialProblem) and to be sealed, Standard Webhooks' made when
 * none is pasted. `prefix`: how the answer names the fields (`verification.` in the enable body;
 * rotate's are top-level).
 */
export function newCredential(
  verification: VerificationInput,
  random: RandomSource,
  sealer: SecretSealer | undefined,
  prefix = 'verification.',
): NewCredential | Rejection {
  const { scheme, ...fields } = verification;
  if (scheme === 'bearer') {
    if (Object.values(fields).some((value) => value !== undefined)) {
      return reject('signing_secret_invalid', 'a bearer secret is always made by the service: leave secret out');
    }
    const made = idFromBytes('secret', random.bytes(32));
    return { credential: { scheme, secretDigest: digestSecret(made) }, shown: made };
  }
  return newSigningCredential(scheme, fields, random, sealer, prefix);
}

function newSigningCredential(
  scheme: SignedScheme,
  fields: ProviderCredentialInput,
  random: RandomSource,
  sealer: SecretSealer | undefined,
  prefix: string,
): NewCredential | Rejection {
  if (!sealer) {
    return reject(
      'signing_secret_invalid',
      `${scheme} verification needs SECRETS_ENCRYPTION_KEY on the ingress (signing secrets are kept encrypted)`,
    );
  }
  const problem = credentialProblem(scheme, fields, prefix);
  if (problem !== undefined) return reject('signing_secret_invalid', problem);
  // Standard Webhooks without a pasted secret: one is made, and shown once.
  const made = scheme === 'standard_webhooks' && fields.secret === undefined;
  const secret = made ? standardWebhooksSecret(random.bytes(STANDARD_WEBHOOKS_SECRET_BYTES)) : sealedCredential(scheme, fields);
  const secretId = idFromBytes('signingSecret', random.bytes(16));
  return {
    credential: { scheme, secretId },
    shown: made ? secret : null,
    signing: { secretId, secret, sealer },
  };
}
