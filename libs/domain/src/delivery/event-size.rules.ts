/**
 * How large the events of one delivery can get, so that a body the service accepts always fits
 * the store's and the broker's limits (a 202 that can never be relayed or become a run would be a
 * lost delivery). Worst cases per body byte, each checked against the real encoders by the tests:
 *
 * - A delivery's payload is kept once, apart from its DeliveryAccepted, at worst as a JSON string:
 *   a control character becomes `\u00XX` (6 bytes); anything else at most 2 (`\"`, `\\`, or a
 *   Latin-1 byte as 2 UTF-8 bytes).
 * - A run's message on routines.runs.v1 holds the framed initial message (framed from the payload
 *   when relayed; the run stores only what framing needs): the frame escapes every byte outside
 *   printable ASCII and `<`, `>`, `&` as `\uXXXX` (6), and the message's JSON escapes that
 *   backslash again (7).
 *
 * Pure arithmetic: no I/O.
 */

export const DELIVERY_EVENT_BYTES_PER_BODY_BYTE = 6;
export const RUN_EVENT_BYTES_PER_BODY_BYTE = 7;

/**
 * Everything around the payload: ids, trigger account (an address of up to 254 characters, each
 * possibly escaped), idempotency key (255, likewise), timestamps, content type, the frame's fixed
 * text, metadata (ids, traceparent) and the store's or broker's own envelope.
 */
export const EVENT_OVERHEAD_BYTES = 16 * 1024;

/** The largest DeliveryAccepted a body of `bodyBytes` can make. */
export function worstDeliveryEventBytes(bodyBytes: number): number {
  return bodyBytes * DELIVERY_EVENT_BYTES_PER_BODY_BYTE + EVENT_OVERHEAD_BYTES;
}

/** The largest RunCreated a body of `bodyBytes` can make for a routine whose snapshot encodes to `routineSnapshotBytes`. */
export function worstRunEventBytes(bodyBytes: number, routineSnapshotBytes: number): number {
  return bodyBytes * RUN_EVENT_BYTES_PER_BODY_BYTE + routineSnapshotBytes + EVENT_OVERHEAD_BYTES;
}

/** The largest body whose events fit `maxEventBytes` whatever it holds, for that routine snapshot size. */
export function largestBodyThatFits(maxEventBytes: number, routineSnapshotBytes: number): number {
  const forDelivery = Math.floor((maxEventBytes - EVENT_OVERHEAD_BYTES) / DELIVERY_EVENT_BYTES_PER_BODY_BYTE);
  const forRun = Math.floor((maxEventBytes - EVENT_OVERHEAD_BYTES - routineSnapshotBytes) / RUN_EVENT_BYTES_PER_BODY_BYTE);
  return Math.max(0, Math.min(forDelivery, forRun));
}

/** Whether both events of a body of `bodyBytes` fit `maxEventBytes` for a routine of that snapshot size. */
export function bodyFits(bodyBytes: number, routineSnapshotBytes: number, maxEventBytes: number): boolean {
  return worstDeliveryEventBytes(bodyBytes) <= maxEventBytes && worstRunEventBytes(bodyBytes, routineSnapshotBytes) <= maxEventBytes;
}
