import type { PayloadRecord } from '@wts/contracts';
import type { RunView } from './run.view';

const PLACEHOLDER = '"\u0000payload\u0000"';

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
  const text = JSON.stringify({ ...rest, payload_format: payload.format, payload: '\u0000payload\u0000' });
  const at = text.lastIndexOf(PLACEHOLDER);
  return text.slice(0, at) + payloadAsJsonText(payload) + text.slice(at + PLACEHOLDER.length);
}
