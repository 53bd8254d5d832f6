import fc from 'fast-check';
import { parse as losslessParse } from 'lossless-json';
import { isRejection, type RejectionCode } from '../shared/decision';
import { MAX_JSON_DEPTH, extractRequest, type ExtractedRequest, type RequestBody } from './request-body.rules';
import type { ParsedContentType } from './request-headers.rules';

const RUNS = { numRuns: 1_000, seed: 10_002 };

const JSON_UTF8: ParsedContentType = { mediaType: 'application/json', charset: 'utf-8' };
const TEXT_UTF8: ParsedContentType = { mediaType: 'text/plain', charset: 'utf-8' };
const EXTRACTION_CODES: readonly RejectionCode[] = [
  'invalid_json',
  'invalid_encoding',
  'invalid_account_email',
  'account_header_requires_text',
];

const contentType = fc.record({
  mediaType: fc.constantFrom('application/json' as const, 'text/plain' as const),
  charset: fc.constantFrom('utf-8', 'iso-8859-1', 'utf-16le', 'utf-16be', 'windows-1252', 'shift_jis'),
});
/** Bytes biased towards JSON punctuation, so that deep, broken and almost-valid documents all appear. */
const jsonishBytes = fc
  .array(fc.oneof(fc.constantFrom(...Buffer.from('{}[]":,\\ 0-1e.tfn')), fc.integer({ min: 0, max: 255 })), { maxLength: 300 })
  .map((bytes) => Buffer.from(bytes));
/** Any UTF-16 string without lone surrogates (what a UTF-8 body can carry). */
const wellFormedText = fc.string({ unit: 'grapheme', maxLength: 200 });

function accepted(request: RequestBody): ExtractedRequest {
  const result = extractRequest(request);
  if (isRejection(result)) throw new Error(`expected acceptance, got ${result.code}: ${result.detail}`);
  return result;
}

describe('extractRequest — properties', () => {
  it('never throws on any bytes, media type, charset and account header; a refusal is one of the extraction codes', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          jsonishBytes,
          fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)),
        ),
        contentType,
        fc.option(fc.string({ maxLength: 30 }), { nil: undefined }),
        (bytes, type, accountHeader) => {
          const result = extractRequest({ bytes, contentType: type, accountHeader });
          if (isRejection(result)) expect(EXTRACTION_CODES).toContain(result.code);
          else if (result.payload.format === 'json')
            expect(() => JSON.parse(result.payload.format === 'json' ? result.payload.json : '')).not.toThrow();
        },
      ),
      RUNS,
    );
  });

  it('text/plain UTF-8 bodies come back as the exact text and the header as the account selection', () => {
    fc.assert(
      fc.property(wellFormedText, fc.option(fc.emailAddress(), { nil: undefined }), (text, accountHeader) => {
        // The decoder drops one leading byte order mark (WHATWG decode); everything else is kept.
        const expected = text.startsWith('\ufeff') ? text.slice(1) : text;
        expect(accepted({ bytes: Buffer.from(text, 'utf8'), contentType: TEXT_UTF8, accountHeader })).toEqual({
          payload: { format: 'text', text: expected },
          accountSelection: accountHeader,
        });
      }),
      RUNS,
    );
  });

  it('a body with a byte sequence that is not UTF-8 is invalid_encoding, for text and JSON alike', () => {
    const invalidSequence = fc.constantFrom([0x80], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xff], [0xe2, 0x82]);
    fc.assert(
      fc.property(wellFormedText, invalidSequence, wellFormedText, fc.constantFrom(JSON_UTF8, TEXT_UTF8), (before, bad, after, type) => {
        const bytes = Buffer.concat([Buffer.from(before, 'utf8'), Buffer.from(bad), Buffer.from(after, 'utf8')]);
        const result = extractRequest({ bytes, contentType: type, accountHeader: undefined });
        expect(isRejection(result) && result.code).toBe('invalid_encoding');
      }),
      RUNS,
    );
  });

  it('any JSON document: the payload is the value of data when present, else the whole body, value for value', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), fc.boolean(), (value, wrap) => {
        const document = wrap ? { data: value, other: 1 } : value;
        const result = extractRequest({
          bytes: Buffer.from(JSON.stringify(document), 'utf8'),
          contentType: JSON_UTF8,
          accountHeader: undefined,
        });
        const isObject = typeof document === 'object' && document !== null && !Array.isArray(document);
        const selection = isObject ? (document as Record<string, unknown>)['account_email'] : undefined;
        if (selection !== undefined && typeof selection !== 'string') {
          expect(isRejection(result) && result.code).toBe('invalid_account_email');
          return;
        }
        if (isRejection(result)) throw new Error(`refused ${result.code}`);
        if (result.payload.format !== 'json') throw new Error('expected a json payload');
        const hasData = isObject && Object.prototype.hasOwnProperty.call(document, 'data');
        const expected = hasData ? (document as Record<string, unknown>)['data'] : document;
        expect(JSON.parse(result.payload.json)).toEqual(JSON.parse(JSON.stringify(expected)));
        expect(result.accountSelection).toBe(selection);
      }),
      RUNS,
    );
  });

  it('keeps every digit of numbers and the order of keys as sent', () => {
    const digits = fc.stringMatching(/^-?[1-9][0-9]{15,40}(\.[0-9]{1,20})?(e[+-]?[0-9]{1,4})?$/);
    fc.assert(
      fc.property(
        fc
          .uniqueArray(fc.stringMatching(/^[a-z]{1,8}$/), { minLength: 1, maxLength: 6 })
          .filter((keys) => !keys.includes('data') && !keys.includes('account_email')),
        fc.array(digits, { minLength: 6, maxLength: 6 }),
        (keys, numbers) => {
          const json = `{${keys.map((key, index) => `"${key}":${numbers[index]}`).join(',')}}`;
          const result = accepted({ bytes: Buffer.from(json), contentType: JSON_UTF8, accountHeader: undefined });
          expect(result.payload).toEqual({ format: 'json', json });
        },
      ),
      RUNS,
    );
  });

  it('"__proto__" is an ordinary key: neither the data nor the account selection can come from it', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 2 }), (inner) => {
        const json = `{"__proto__":{"data":${JSON.stringify(inner)},"account_email":"x@example.com"},"n":1}`;
        const result = accepted({ bytes: Buffer.from(json), contentType: JSON_UTF8, accountHeader: undefined });
        expect(result.accountSelection).toBeUndefined();
        expect(result.payload.format === 'json' && losslessParse(result.payload.json)).toEqual(losslessParse(json));
      }),
      { ...RUNS, numRuns: 200 },
    );
  });

  it(`nesting up to ${MAX_JSON_DEPTH} levels is accepted and deeper is invalid_json, brackets inside strings not counted`, () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.integer({ min: 1, max: 5_000 }), fc.integer({ min: MAX_JSON_DEPTH - 4, max: MAX_JSON_DEPTH + 1 })),
        fc.constantFrom('[', '{"a":'),
        fc.constantFrom('"[[[{{{"', '"\\"[[["', '"\\\\"'),
        (depth, open, leaf) => {
          const close = open === '[' ? ']' : '}';
          const json = open.repeat(depth) + leaf + close.repeat(depth);
          const result = extractRequest({ bytes: Buffer.from(json), contentType: JSON_UTF8, accountHeader: undefined });
          if (depth <= MAX_JSON_DEPTH) expect(isRejection(result)).toBe(false);
          else expect(isRejection(result) && result.code).toBe('invalid_json');
        },
      ),
      { ...RUNS, numRuns: 300 },
    );
  });

  it('a body whose numbers are spelled as JavaScript spells them is handed on as JSON.parse reads it (jsonIsPlain)', () => {
    fc.assert(
      fc.property(fc.json({ maxDepth: 4 }), (json) => {
        const result = extractRequest({ bytes: Buffer.from(json), contentType: JSON_UTF8, accountHeader: undefined });
        if (isRejection(result)) return; // an account_email that is not a string: covered above
        expect(result.jsonIsPlain).toBe(true);
        expect(result.json).toEqual(JSON.parse(json));
      }),
      RUNS,
    );
  });

  it('a number spelled otherwise keeps the lossless tree (not plain) and its spelling in the payload', () => {
    const spelled = fc.oneof(
      fc.constantFrom('1.0', '1e2', '-0', '1E5', '0.10', '2.50e-3', '-0.0'),
      fc.stringMatching(/^-?[1-9][0-9]{17,30}7$/), // odd past 2^53: no double holds it
    );
    fc.assert(
      fc.property(fc.json({ maxDepth: 3 }), spelled, (inner, number) => {
        const json = `{"data":{"inner":${inner},"n":${number}}}`;
        const result = accepted({ bytes: Buffer.from(json), contentType: JSON_UTF8, accountHeader: undefined });
        expect(result.jsonIsPlain).toBe(false);
        expect(result.payload.format === 'json' && result.payload.json.endsWith(`"n":${number}}`)).toBe(true);
      }),
      { ...RUNS, numRuns: 300 },
    );
  });

  it('a JSON request naming the account in the header is refused whatever the body', () => {
    fc.assert(
      fc.property(fc.json({ maxDepth: 3 }), fc.string({ minLength: 1, maxLength: 30 }), (json, header) => {
        const result = extractRequest({ bytes: Buffer.from(json), contentType: JSON_UTF8, accountHeader: header });
        expect(isRejection(result) && result.code).toBe('account_header_requires_text');
      }),
      RUNS,
    );
  });
});
