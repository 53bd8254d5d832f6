import type { RateLimitState } from './rate-limiter.port';
import type { HandshakeQuery, RejectionCode, SchemaError, SignedRequestHeaders } from '@wts/domain';
import type { HandshakeAnswer, SignatureHeaders } from '../signing/signature.verifier';

export type BodyReadResult = { readonly kind: 'read'; readonly bytes: Buffer } | { readonly kind: 'too_large' };

/** Everything the public endpoint needs from an HTTP request, as plain values. */
export interface TriggerWebhookRequest {
  /** GET carries query handshakes only (X, Meta, Microsoft Graph); absent: POST. */
  readonly method?: 'GET' | 'POST';
  /** The query members a handshake is read from (X's, Meta's and Graph's). */
  readonly query?: HandshakeQuery;
  readonly webhookId: string;
  readonly authorization: string | undefined;
  readonly contentType: string | undefined;
  /** Content-Encoding as received; only identity (or none) is read. */
  readonly contentEncoding?: string | undefined;
  readonly accountHeader: string | undefined;
  readonly idempotencyKey: string | undefined;
  readonly traceparent: string | undefined;
  readonly sourceAddress: string;
  /** The signature headers of signed senders (docs/signed-senders.md), when present. */
  readonly signature?: SignatureHeaders & SignedRequestHeaders;
  /** Every header, lower-case names, one string each: read only when a filter needs them. */
  readonly headers?: () => Record<string, string>;
  /** Reads the body, refusing past `maxBytes` while streaming (never truncating). */
  readonly readBody: (maxBytes: number) => Promise<BodyReadResult>;
}

export interface AcceptedDeliveryBody {
  readonly delivery_id: string;
  readonly run_id: string;
  readonly status: 'accepted';
}

/** A delivery the webhook's filter turned away: recorded, no run (answered 200). */
export interface FilteredDeliveryBody {
  readonly delivery_id: string;
  readonly run_id: null;
  readonly status: 'filtered';
}

export type TriggerWebhookOutcome =
  /** A provider's URL-verification handshake answered: no delivery, no run. */
  | { readonly kind: 'handshake'; readonly answer: HandshakeAnswer; readonly rateLimit?: undefined }
  | {
      readonly kind: 'accepted';
      readonly body: AcceptedDeliveryBody;
      readonly replayed: boolean;
      readonly rateLimit: RateLimitState;
      /** The webhook's filter failed to evaluate on it (the run is made: fail open). */
      readonly filterError?: boolean;
    }
  | { readonly kind: 'filtered'; readonly body: FilteredDeliveryBody; readonly rateLimit: RateLimitState }
  | {
      readonly kind: 'rejected';
      readonly code: RejectionCode;
      readonly detail: string;
      /** payload_schema_mismatch: the first reasons the payload does not conform. */
      readonly errors?: readonly SchemaError[];
      /** Present once the request got as far as the rate limiter. */
      readonly rateLimit?: RateLimitState;
    };
