import type { PayloadRecord } from '@wts/contracts';
import { isLosslessNumber, stringify } from 'lossless-json';
import { isRejection, reject, type Rejection } from '../shared/decision';
import { parseJsonBody, type ParsedJsonBody } from './json-body.rules';
import type { ParsedContentType } from './request-headers.rules';

export { MAX_JSON_DEPTH } from './json-body.rules';

export interface ExtractedRequest {
  readonly payload: PayloadRecord;
  /** The account the request names (account_email or X-Service-Account-Email), if any. */
  readonly accountSelection: string | undefined;
  /** A JSON body as parsed (ParsedJsonBody): what a repeat is compared on. */
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
  const parsed = parseJsonBody(text);
  return isRejection(parsed) ? parsed : wholeBodyPayload(parsed, text);
}

function decode(bytes: Buffer, charset: string, keepByteOrderMark: boolean): string | Rejection {
  try {
    return new TextDecoder(charset, { fatal: true, ignoreBOM: keepByteOrderMark }).decode(bytes);
  } catch {
    return reject('invalid_encoding', `the body is not valid ${charset}`);
  }
}

function extractJson(text: string): ExtractedRequest | Rejection {
  const parsed = parseJsonBody(text);
  if (isRejection(parsed)) return parsed;
  const value = parsed.json;
  if (!isPlainObject(value)) return wholeBodyPayload(parsed, text);
  const selection = value['account_email'];
  if (selection !== undefined && typeof selection !== 'string') {
    return reject('invalid_account_email', 'account_email must be a string');
  }
  const hasData = Object.prototype.hasOwnProperty.call(value, 'data');
  return {
    payload: jsonPayload(hasData ? value['data'] : value, parsed.jsonIsPlain),
    accountSelection: selection,
    json: value,
    jsonIsPlain: parsed.jsonIsPlain,
    jsonText: text,
    payloadInData: hasData,
  };
}

/** A JSON body whose payload is the whole body, selecting no account. */
function wholeBodyPayload(parsed: ParsedJsonBody, text: string): ExtractedRequest {
  return {
    payload: jsonPayload(parsed.json, parsed.jsonIsPlain),
    accountSelection: undefined,
    ...parsed,
    jsonText: text,
    payloadInData: false,
  };
}

/** The payload's JSON text: a plain tree's is JSON.stringify's (the same text, written natively). */
function jsonPayload(value: unknown, jsonIsPlain: boolean): PayloadRecord {
  const json = jsonIsPlain ? JSON.stringify(value) : stringify(value);
  if (json === undefined) throw new Error('a parsed JSON value always stringifies');
  return { format: 'json', json };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !isLosslessNumber(value);
}
