import type { SignatureVerdict, SignedDelivery } from '@wts/application';
import { createHash, timingSafeEqual } from 'node:crypto';
import { refused, VALID } from './signature-check.shared';

/** A notification batch larger than this is refused unchecked (Graph batches far fewer). */
const MAX_NOTIFICATIONS = 1_000;

/**
 * Microsoft Graph signs nothing: each change notification carries the subscription's `clientState`,
 * which only Graph and the subscriber know. The body is `{"value": [notification, …]}`: every
 * notification must carry the same `clientState`, and it is compared with the webhook's in constant
 * time — once per request, SHA-256 digests of equal length, whatever the body holds — so the work
 * does not depend on the endpoint. No `clientState`, or notifications that disagree: refused.
 */
export function checkMicrosoftGraph(delivery: SignedDelivery): SignatureVerdict {
  const states = clientStates(delivery.body);
  const first = states?.[0] ?? '';
  const agree = states !== undefined && states.length > 0 && states.every((state) => state === first);
  const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();
  const matches = timingSafeEqual(digest(first), digest(delivery.secret));
  if (states === undefined) return refused('malformed_signature');
  if (states.length === 0 || first === '') return refused('missing_signature');
  return agree && matches ? VALID : refused('signature_mismatch');
}

/** The `clientState` of each notification (`''` where absent); undefined when the body is not Graph's shape. */
function clientStates(body: Buffer): string[] | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
  const value = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as { value?: unknown }).value : undefined;
  if (!Array.isArray(value) || value.length > MAX_NOTIFICATIONS) return undefined;
  return value.map((item: unknown) => {
    const state = typeof item === 'object' && item !== null ? (item as { clientState?: unknown }).clientState : undefined;
    return typeof state === 'string' ? state : '';
  });
}
