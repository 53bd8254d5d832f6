import type { SignedScheme } from '@wts/contracts';

/** The signature headers of a delivery, as received (each one's first value). */
export interface SignatureHeaders {
  /** Standard Webhooks: `webhook-id`, `webhook-timestamp`, `webhook-signature`. */
  readonly webhookId?: string | undefined;
  readonly webhookTimestamp?: string | undefined;
  readonly webhookSignature?: string | undefined;
  /** GitHub: `X-Hub-Signature-256` (`sha256=<hex>`). */
  readonly hubSignature256?: string | undefined;
  /** Stripe: `Stripe-Signature` (`t=<seconds>,v1=<hex>[,v1=…]`). */
  readonly stripeSignature?: string | undefined;
  /** Shopify: `X-Shopify-Hmac-Sha256` (base64). */
  readonly shopifyHmacSha256?: string | undefined;
  /** GitLab: `X-Gitlab-Token` (the secret token itself). */
  readonly gitlabToken?: string | undefined;
  /** Linear: `Linear-Signature` (hex; its timestamp is the body's `webhookTimestamp`). */
  readonly linearSignature?: string | undefined;
  /** Sentry: `Sentry-Hook-Signature` (hex). */
  readonly sentryHookSignature?: string | undefined;
  /** PagerDuty: `X-PagerDuty-Signature` (`v1=<hex>[,v1=<hex>…]`). */
  readonly pagerdutySignature?: string | undefined;
  /** Zendesk: `X-Zendesk-Webhook-Signature` (base64) and `X-Zendesk-Webhook-Signature-Timestamp` (ISO 8601). */
  readonly zendeskWebhookSignature?: string | undefined;
  readonly zendeskWebhookSignatureTimestamp?: string | undefined;
  /** Svix: Standard Webhooks under its own names, `svix-id`, `svix-timestamp`, `svix-signature`. */
  readonly svixId?: string | undefined;
  readonly svixTimestamp?: string | undefined;
  readonly svixSignature?: string | undefined;
}

/** One delivery to check: the raw body bytes as received, never re-encoded. */
export interface SignedDelivery {
  readonly scheme: SignedScheme;
  readonly secret: string;
  readonly body: Buffer;
  readonly headers: SignatureHeaders;
  /** The time the delivery is judged at (milliseconds since the epoch). */
  readonly nowMs: number;
  /** How far a signed timestamp may be from `nowMs`, either way (Standard Webhooks, Svix, Stripe, Linear, Zendesk; the others sign none). */
  readonly toleranceSeconds: number;
}

export type SignatureFailure =
  /** A header the scheme needs is absent. */
  | 'missing_signature'
  /** A header is there but not in the scheme's form (e.g. no `sha256=`, no `t=`). */
  | 'malformed_signature'
  /** No signature in the header matches the body under the secret. */
  | 'signature_mismatch'
  /** The signed timestamp is older or newer than the tolerance allows. */
  | 'timestamp_outside_tolerance';

export type SignatureVerdict = { readonly valid: true } | { readonly valid: false; readonly reason: SignatureFailure };

/**
 * Verifies a signed delivery with the provider's own library. Its work must not depend on whether
 * the secret is a webhook's or a decoy: the caller checks an unknown, disabled or differently
 * configured endpoint against `decoySecret(scheme)` and refuses it the same way.
 */
export interface SignatureVerifier {
  verify(delivery: SignedDelivery): Promise<SignatureVerdict>;
  /** A secret in the scheme's own form that no sender holds (made once per process). */
  decoySecret(scheme: SignedScheme): string;
}
