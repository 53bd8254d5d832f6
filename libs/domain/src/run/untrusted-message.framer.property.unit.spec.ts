import type { PayloadRecord } from '@wts/contracts';
import fc from 'fast-check';
import { jsonParseOf } from '@wts/testing';
import {
  UNTRUSTED_PAYLOAD_CLOSING,
  UNTRUSTED_PAYLOAD_PREAMBLE,
  decodeFramedPayload,
  extractFramedPayloadLine,
  frameUntrustedPayload,
  minifyJsonText,
} from './untrusted-message.framer';

const RUNS = { numRuns: 1_000, seed: 10_004 };

/** Full UTF-16: lone surrogates, U+2028/U+2029, CR, NUL, '<<<' and the marker text itself. */
const hostileText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc
    .array(
      fc.constantFrom(
        '<<<',
        '>>>',
        'UNTRUSTED_PAYLOAD_END delivery=d1',
        '\n',
        '\r',
        '\u2028',
        '\u2029',
        '\u0000',
        '&',
        '\ud800',
        '\udfff',
        'é',
        '😀',
        '"',
        '\\',
      ),
      { maxLength: 30 },
    )
    .map((parts) => parts.join('')),
);
const jsonText = fc.oneof(
  fc.json({ maxDepth: 5 }),
  fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value, null, 2)),
  hostileText.map((text) => JSON.stringify({ text, list: [text, true, -0, null] })),
);
const payload: fc.Arbitrary<PayloadRecord> = fc.oneof(
  jsonText.map((json): PayloadRecord => ({ format: 'json', json })),
  hostileText.map((text): PayloadRecord => ({ format: 'text', text })),
);
const id = fc.stringMatching(/^[A-Za-z0-9_-]{1,40}$/);
const contentType = fc.oneof(
  fc.constantFrom('application/json', 'text/plain; charset=utf-8', 'TEXT/Plain'),
  fc.string({ unit: 'binary', maxLength: 40 }),
);

describe('frameUntrustedPayload — properties', () => {
  it('nothing in the payload or the content type can add, move or close a marker: exactly two "<<<", one payload line, fixed text around it', () => {
    fc.assert(
      fc.property(id, id, contentType, payload, (deliveryId, webhookId, type, record) => {
        const message = frameUntrustedPayload({
          deliveryId,
          webhookId,
          receivedAt: '2024-05-01T12:00:00.000Z',
          contentType: type,
          payload: record,
        });
        expect(message.split('<<<')).toHaveLength(3);
        expect(message.startsWith(`${UNTRUSTED_PAYLOAD_PREAMBLE}\n`)).toBe(true);
        expect(message.endsWith(`\n${UNTRUSTED_PAYLOAD_CLOSING}`)).toBe(true);
        const line = extractFramedPayloadLine(message);
        expect(line).toMatch(/^[\x20-\x7e]*$/);
        expect(line).not.toMatch(/[<>&]/);
        expect(message.split('\n')).toHaveLength(UNTRUSTED_PAYLOAD_PREAMBLE.split('\n').length + 9);
      }),
      RUNS,
    );
  });

  it('the payload line decodes to the payload: the same JSON value, or the exact text (lone surrogates included)', () => {
    fc.assert(
      fc.property(payload, (record) => {
        const message = frameUntrustedPayload({
          deliveryId: 'd1',
          webhookId: 'w1',
          receivedAt: '2024-05-01T12:00:00Z',
          contentType: 'application/json',
          payload: record,
        });
        const decoded = decodeFramedPayload(message);
        if (record.format === 'text') expect(decoded).toBe(record.text);
        else expect(decoded).toEqual(JSON.parse(record.json));
      }),
      RUNS,
    );
  });

  it('is deterministic: the same input gives byte-identical text', () => {
    fc.assert(
      fc.property(id, payload, (deliveryId, record) => {
        const input = { deliveryId, webhookId: 'w', receivedAt: '2024-05-01T12:00:00+02:00', contentType: 'text/plain', payload: record };
        expect(frameUntrustedPayload(input)).toBe(frameUntrustedPayload(input));
      }),
      RUNS,
    );
  });
});

describe('minifyJsonText — properties (the framer’s JSON checker)', () => {
  /** Strings made mostly of JSON punctuation, so almost-valid documents are common. */
  const jsonish = fc
    .array(
      fc.oneof(
        fc.constantFrom(
          '{',
          '}',
          '[',
          ']',
          '"',
          ':',
          ',',
          ' ',
          '\n',
          '\t',
          '\\',
          'u',
          '0',
          '1',
          '-',
          '.',
          'e',
          '+',
          'true',
          'null',
          'fals',
          '"a"',
          '\u2028',
          '\u0001',
        ),
        fc.string({ maxLength: 3 }),
      ),
      { maxLength: 40 },
    )
    .map((parts) => parts.join(''));

  it('accepts exactly what JSON.parse accepts, and keeps its value', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          jsonish,
          fc.json({ maxDepth: 4 }),
          fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value, null, '\t')),
        ),
        (text) => {
          const expected = jsonParseOf(text);
          if (!expected.valid) {
            expect(() => minifyJsonText(text)).toThrow(SyntaxError);
            return;
          }
          const minified = minifyJsonText(text);
          expect(JSON.parse(minified)).toEqual(expected.value);
          expect(minifyJsonText(minified)).toBe(minified);
        },
      ),
      { ...RUNS, numRuns: 5_000 },
    );
  });

  it('never recurses: 100,000 levels of nesting are checked without a stack overflow', () => {
    fc.assert(
      fc.property(fc.integer({ min: 10_000, max: 100_000 }), fc.constantFrom('[', '{"k":'), (depth, open) => {
        const close = open === '[' ? ']' : '}';
        const text = `${open.repeat(depth)}0${close.repeat(depth)}`;
        expect(minifyJsonText(text)).toBe(text);
        expect(() => minifyJsonText(text.slice(0, -1))).toThrow(SyntaxError);
      }),
      { ...RUNS, numRuns: 10 },
    );
  });
});
