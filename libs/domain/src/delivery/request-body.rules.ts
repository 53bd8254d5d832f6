import type { PayloadRecord } from '@wts/contracts';
import { LosslessNumber, isLosslessNumber, parse, stringify } from 'lossless-json';
import { isRejection, reject, type Rejection } from '../shared/decision';
import type { ParsedContentType } from './request-headers.rules';

/** JSON nested deeper than this is refused: a documented limit, not a stack-dependent one. */
export const MAX_JSON_DEPTH = 512;

export interface ExtractedRequest {
  readonly payload: PayloadRecord;
  /** The account the request names (account_email or X-Service-Account-Email), if any. */
  readonly accountSelection: string | undefined;
  /**
   * A JSON body as parsed: what a repeat is compared on. A number is a plain number when that
   * number's JavaScript spelling is its text (`42`, `0.5`), else a LosslessNumber keeping its text
   * exactly (`1.0`, `1e2`, 20 digits): either way it is written back as sent.
   */
  readonly json?: unknown;
  /** True when `json` holds no LosslessNumber: its values are JSON.parse's, so a rule may read it as it is. */
  readonly jsonIsPlain?: boolean;
  /**
   * A JSON body as decoded text, and whether its payload is its `data` member: what a routine
   * rule parses again natively when `json` is not plain (a flat string parses faster than the
   * payload's re-serialised text).
   */
  readonly jsonText?: string;
  readonly payloadInData?: boolean;
}

export interface RequestBody {
  readonly bytes: Buffer;
  readonly contentType: ParsedContentType;
  readonly accountHeader: string | undefined;
}

/**
 * Spec rules 5 and 6: JSON → the value of `data` when present, else the whole body; text → the
 * raw text. The account selection is `account_email` for JSON and the header for text.
 */
export function extractRequest(body: RequestBody): ExtractedRequest | Rejection {
  const isText = body.contentType.mediaType === 'text/plain';
  // Text is the raw text: a byte order mark at its start is part of it. JSON may begin with one (RFC 8259 §8.1).
  const text = decode(body.bytes, body.contentType.charset, isText);
  if (typeof text !== 'string') return text;
  if (isText) {
    return { payload: { format: 'text', text }, accountSelection: body.accountHeader };
  }
  if (body.accountHeader !== undefined) {
    return reject(
      'account_header_requires_text',
      'X-Service-Account-Email is for text/plain requests; send account_email in the JSON body',
    );
  }
  return extractJson(text);
}

/**
 * A signed delivery's body: the payload is the whole body as its sender signed it (a provider's
 * `data` member is not unwrapped) and it selects no account (the webhook's default is the trigger
 * account). Decoding and JSON rules are the spec's.
 */
export function extractSignedRequest(body: Omit<RequestBody, 'accountHeader'>): ExtractedRequest | Rejection {
  const isText = body.contentType.mediaType === 'text/plain';
  const text = decode(body.bytes, body.contentType.charset, isText);
  if (typeof text !== 'string') return text;
  if (isText) return { payload: { format: 'text', text }, accountSelection: undefined };
  const value = parseJson(text);
  if (isRejection(value)) return value;
  return { payload: jsonPayload(value.json), accountSelection: undefined, ...value, jsonText: text, payloadInData: false };
}

function decode(bytes: Buffer, charset: string, keepByteOrderMark: boolean): string | Rejection {
  try {
    return new TextDecoder(charset, { fatal: true, ignoreBOM: keepByteOrderMark }).decode(bytes);
  } catch {
    return reject('invalid_encoding', `the body is not valid ${charset}`);
  }
}

function parseJson(text: string): { readonly json: unknown; readonly jsonIsPlain: boolean } | Rejection {
  if (exceedsDepth(text, MAX_JSON_DEPTH)) {
    return reject('invalid_json', `JSON nested deeper than ${MAX_JSON_DEPTH} levels is not accepted`);
  }
  let jsonIsPlain = true;
  const parseNumber = (digits: string): number | LosslessNumber => {
    const double = Number(digits);
    if (String(double) === digits) return double;
    jsonIsPlain = false;
    return new LosslessNumber(digits);
  };
  try {
    const json = parse(text, null, parseNumber);
    return { json, jsonIsPlain };
  } catch (error) {
    const reason = error instanceof Error ? error.message : 'unparseable';
    return reject('invalid_json', `the body is not valid JSON: ${reason}`);
  }
}

function extractJson(text: string): ExtractedRequest | Rejection {
  const parsed = parseJson(text);
  if (isRejection(parsed)) return parsed;
  const value = parsed.json;
  const { jsonIsPlain } = parsed;
  if (!isPlainObject(value))
    return { payload: jsonPayload(value), accountSelection: undefined, json: value, jsonIsPlain, jsonText: text, payloadInData: false };
  const selection = value['account_email'];
  if (selection !== undefined && typeof selection !== 'string') {
    return reject('invalid_account_email', 'account_email must be a string');
  }
  const hasData = Object.prototype.hasOwnProperty.call(value, 'data');
  return {
    payload: jsonPayload(hasData ? value['data'] : value),
    accountSelection: selection,
    json: value,
    jsonIsPlain,
    jsonText: text,
    payloadInData: hasData,
  };
}

function jsonPayload(value: unknown): PayloadRecord {
  const json = stringify(value);
  if (json === undefined) throw new Error('a parsed JSON value always stringifies');
  return { format: 'json', json };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !isLosslessNumber(value);
}

/** One pass over the text, skipping strings: true when brackets nest deeper than `max`. */
function exceedsDepth(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}
