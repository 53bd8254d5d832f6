import { parse as parseMediaType } from 'content-type';
import { reject, type Rejection } from '../shared/decision';

export type AcceptedMediaType = 'application/json' | 'text/plain';

export interface ParsedContentType {
  readonly mediaType: AcceptedMediaType;
  /** The charset label, lower-cased; utf-8 when absent. */
  readonly charset: string;
}

/**
 * `Authorization: Bearer <secret>`: the scheme word is case-insensitive, one or more spaces, then
 * a token68. Anything else is "no secret presented" (which answers the same 404 as a wrong one).
 */
export function parseBearerSecret(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = /^bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header);
  return match ? match[1] : undefined;
}

/** Only application/json and text/plain, with parameters such as charset; else 415. */
export function parseContentType(header: string | undefined): ParsedContentType | Rejection {
  const unsupported = reject('unsupported_media_type', 'Content-Type must be application/json or text/plain');
  if (header === undefined || header.trim() === '') return unsupported;
  let parsed: ReturnType<typeof parseMediaType>;
  try {
    parsed = parseMediaType(header);
  } catch {
    return unsupported;
  }
  if (parsed.type !== 'application/json' && parsed.type !== 'text/plain') return unsupported;
  const charset = (parsed.parameters.charset ?? 'utf-8').toLowerCase();
  if (!isSupportedCharset(charset)) {
    return reject('unsupported_media_type', `charset ${charset} is not supported`);
  }
  return { mediaType: parsed.type, charset };
}

/**
 * The service reads bodies as sent: no Content-Encoding but `identity` (RFC 9110 §8.4). A
 * compressed body is refused with 415 (§15.5.16) before it is read, never decoded into a 400.
 */
export function checkContentEncoding(header: string | undefined): Rejection | undefined {
  if (header === undefined) return undefined;
  const codings = header
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '');
  if (codings.every((coding) => coding === 'identity')) return undefined;
  return reject('unsupported_content_encoding', `Content-Encoding ${codings.join(', ')} is not supported: send the body uncompressed`);
}

function isSupportedCharset(label: string): boolean {
  try {
    new TextDecoder(label);
    return true;
  } catch {
    return false;
  }
}

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** 1–255 visible ASCII characters, else 400. Absent: undefined. */
export function parseIdempotencyKey(header: string | undefined): string | undefined | Rejection {
  if (header === undefined) return undefined;
  if (!IDEMPOTENCY_KEY.test(header)) {
    return reject('invalid_idempotency_key', 'X-Service-Idempotency-Key must be 1 to 255 visible ASCII characters');
  }
  return header;
}
