import type { SignedScheme } from '@wts/contracts';
import type { Handshake } from '@wts/domain';

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
  /** Slack: `X-Slack-Signature` (`v0=<hex>`) and `X-Slack-Request-Timestamp`. */
  readonly slackSignature?: string | undefined;
  readonly slackTimestamp?: string | undefined;
  /** Zoom: `x-zm-signature` (`v0=<hex>`) and `x-zm-request-timestamp`. */
  readonly zoomSignature?: string | undefined;
  readonly zoomTimestamp?: string | undefined;
  /** Discord: `X-Signature-Ed25519` (hex) and `X-Signature-Timestamp`. */
  readonly discordSignature?: string | undefined;
  readonly discordTimestamp?: string | undefined;
  /** Twitch EventSub: `Twitch-Eventsub-Message-Signature` (`sha256=<hex>`), `-Id` and `-Timestamp` (RFC 3339). */
  readonly twitchSignature?: string | undefined;
  readonly twitchMessageId?: string | undefined;
  readonly twitchTimestamp?: string | undefined;
  /** X: `x-twitter-webhooks-signature` (`sha256=<base64>`). */
  readonly xSignature?: string | undefined;
}

/** One delivery to check: the raw body bytes as received, never re-encoded. */
export interface SignedDelivery {
  readonly scheme: SignedScheme;
  /** The sealed credential opened: the signing secret, Discord's public key, Graph's clientState, Meta's JSON pair. */
  readonly secret: string;
  readonly body: Buffer;
  readonly headers: SignatureHeaders;
  /** The time the delivery is judged at (milliseconds since the epoch). */
  readonly nowMs: number;
  /**
   * How far a signed timestamp may be from `nowMs`, either way (Standard Webhooks, Svix, Stripe, Linear,
   * Zendesk, Slack, Zoom, Discord; Twitch: at least 10 minutes; GitHub, Meta, X and the others sign none).
   */
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
 * A handshake's answer, exactly as the provider documents it: the status (200, or 204 for Discord's
 * webhook-events PING), the content type and the body (empty for a 204).
 */
export interface HandshakeAnswer {
  readonly status: 200 | 204;
  readonly contentType: string | undefined;
  readonly body: string;
}

/**
 * Verifies a signed delivery with the provider's own library. Its work must not depend on whether
 * the secret is a webhook's or a decoy: the caller checks an unknown, disabled or differently
 * configured endpoint against `decoySecret(scheme)` and refuses it the same way.
 */
export interface SignatureVerifier {
  verify(delivery: SignedDelivery): Promise<SignatureVerdict>;
  /** A secret in the scheme's own form that no sender holds (made once per process). */
  decoySecret(scheme: SignedScheme): string;
  /**
   * A handshake's answer under the credential (`secret` as in SignedDelivery; a decoy's for an
   * endpoint that is not the handshake's): Zoom's `encryptedToken` and X's `response_token` are
   * HMACs under it. Undefined when the handshake's own proof fails — Meta's verify token, compared in
   * constant time — the same work either way.
   */
  answer(handshake: Handshake, secret: string): HandshakeAnswer | undefined;
}
