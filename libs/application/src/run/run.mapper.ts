import type { PayloadRecord } from '@wts/contracts';
import type { RunView } from './run.view';

const MARKER = '\u0000payload\u0000';
const PLACEHOLDER = JSON.stringify(MARKER);

/** The payload as a JSON value: JSON payloads keep their exact text (every digit), text is a string. */
export function payloadAsJsonText(payload: PayloadRecord): string {
  return payload.format === 'json' ? payload.json : JSON.stringify(payload.text);
}

/**
 * JSON for a run: `payload` is the payload's own JSON value spliced in verbatim (so large
 * numbers are not rounded by a parse/serialise round trip), `payload_format` says which it was.
 */
export function serializeRunView(view: RunView): string {
  const { payload, ...rest } = view;
  if (payload === null) return JSON.stringify({ ...rest, payload_format: null, payload: null });
  const text = JSON.stringify({ ...rest, payload_format: payload.format, payload: MARKER });
  const at = text.lastIndexOf(PLACEHOLDER);
  if (at < 0) throw new Error('payload placeholder missing');
  return text.slice(0, at) + payloadAsJsonText(payload) + text.slice(at + PLACEHOLDER.length);
}
