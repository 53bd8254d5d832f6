import type { RandomSource } from './runtime.port';

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** W3C trace context: keep the caller's trace id when valid, always a new span id. */
export function childTraceparent(incoming: string | undefined, random: RandomSource): string {
  const parsed = incoming ? TRACEPARENT.exec(incoming.trim()) : null;
  // W3C: an all-zero trace id or parent id makes the whole header invalid: start a new trace.
  const match = parsed && !/^0+$/.test(parsed[1]) && !/^0+$/.test(parsed[2]) ? parsed : null;
  const traceId = match ? match[1] : random.bytes(16).toString('hex');
  const flags = match ? match[3] : '01';
  return `00-${traceId}-${random.bytes(8).toString('hex')}-${flags}`;
}

export function isTraceparent(value: string): boolean {
  return TRACEPARENT.test(value);
}

/** The trace id (32 hex) of a valid W3C traceparent; null when there is none or it is malformed. */
export function traceIdOf(traceparent: unknown): string | null {
  const match = typeof traceparent === 'string' ? TRACEPARENT.exec(traceparent) : null;
  if (!match || /^0+$/.test(match[1]) || /^0+$/.test(match[2])) return null;
  return match[1];
}
