import type { SignatureVerdict, SignedDelivery } from '@wts/application';
import { checkBodyHmacSha256, nonEmptySecret } from './signature-check.shared';

/** The base64 of a SHA-256 HMAC (32 bytes): 43 characters and one `=`, as Shopify sends it. */
const BASE64_SHA256 = /^[A-Za-z0-9+/]{43}=$/;

/** Shopify's library takes any non-empty secret (an empty key is one Web Crypto refuses). */
export const shopifyTakes = nonEmptySecret;

/**
 * Shopify: `X-Shopify-Hmac-Sha256: <base64 HMAC-SHA256 of the body>` keyed with the app's client
 * secret (or, for a webhook made in the store admin, the key the admin shows). Shopify signs no
 * timestamp and neither `X-Shopify-Event-Id` nor `X-Shopify-Webhook-Id`, so no tolerance applies,
 * and a verified signature is what a repeat is recognised by (replayGuard in @wts/domain). The HMAC
 * is node:crypto's over the raw body bytes, compared in constant time with the header as sent;
 * tests prove the verdicts are `@shopify/shopify-api`'s (`webhooks.validate`).
 */
export function checkShopify(delivery: SignedDelivery): SignatureVerdict {
  return checkBodyHmacSha256(delivery, delivery.headers.shopifyHmacSha256, BASE64_SHA256, 'base64');
}
