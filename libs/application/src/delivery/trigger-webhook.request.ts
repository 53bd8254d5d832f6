import type { RateLimitState } from './rate-limiter.port';
import type { RejectionCode, SignedRequestHeaders } from '@wts/domain';
import type { SignatureHeaders } from '../signing/signature.verifier';

export type BodyReadResult = { readonly kind: 'read'; readonly bytes: Buffer } | { readonly kind: 'too_large' };

/** Everything the public endpoint needs from an HTTP request, as plain values. */
export interface TriggerWebhookRequest {
  readonly webhookId: string;
  readonly authorization: string | undefined;
  readonly contentType: string | undefined;
  /** Content-Encoding as received; only identity (or none) is read. */
  readonly contentEncoding?: string | undefined;
  readonly accountHeader: string | undefined;
  readonly idempotencyKey: string | undefined;
  readonly traceparent: string | undefined;
  readonly sourceAddress: string;
  /** The signature, delivery id and event headers of signed senders (GitHub, Stripe, Standard Webhooks, Shopify, …), when present. */
  readonly signature?: SignatureHeaders & SignedRequestHeaders;
  /** Reads the body, refusing past `maxBytes` while streaming (never truncating). */
  readonly readBody: (maxBytes: number) => Promise<BodyReadResult>;
}

export interface AcceptedDeliveryBody {
  readonly delivery_id: string;
  readonly run_id: string;
  readonly status: 'accepted';
}

export type TriggerWebhookOutcome =
  | {
      readonly kind: 'accepted';
      readonly body: AcceptedDeliveryBody;
      readonly replayed: boolean;
      readonly rateLimit: RateLimitState;
    }
  | {
      readonly kind: 'rejected';
      readonly code: RejectionCode;
      readonly detail: string;
      /** Present once the request got as far as the rate limiter. */
      readonly rateLimit?: RateLimitState;
    };
