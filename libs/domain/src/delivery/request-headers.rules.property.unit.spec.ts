import fc from 'fast-check';
import { isRejection } from '../shared/decision';
import { parseBearerSecret, parseContentType, parseIdempotencyKey } from './request-headers.rules';

/** Property runs are seeded so a failure reproduces; fast-check prints the seed and the shrunk case. */
const RUNS = { numRuns: 2_000, seed: 10_001 };

/** Header values as a client can send them: any Latin-1 text (Node hands header bytes over as latin1). */
const headerValue = fc.string({ unit: fc.integer({ min: 0, max: 0xff }).map((code) => String.fromCharCode(code)), maxLength: 80 });
const token68 = fc
  .tuple(fc.stringMatching(/^[A-Za-z0-9\-._~+/]{1,60}$/), fc.integer({ min: 0, max: 3 }))
  .map(([head, padding]) => head + '='.repeat(padding));

describe('parseBearerSecret — properties', () => {
  it('returns the token of any well-formed Bearer header, whatever the scheme case and spacing', () => {
    fc.assert(
      fc.property(
        fc.mixedCase(fc.constant('bearer')),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 0, max: 3 }),
        token68,
        (scheme, before, after, token) => {
          expect(parseBearerSecret(`${scheme}${' '.repeat(before)}${token}${' '.repeat(after)}`)).toBe(token);
        },
      ),
      RUNS,
    );
  });

  it('never throws, and anything it returns is a token68 found in the header', () => {
    fc.assert(
      fc.property(fc.oneof(headerValue, fc.string()), (header) => {
        const secret = parseBearerSecret(header);
        if (secret !== undefined) {
          expect(secret).toMatch(/^[A-Za-z0-9\-._~+/]+=*$/);
          expect(header.includes(secret)).toBe(true);
        }
      }),
      RUNS,
    );
  });

  it('any other scheme presents no secret', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[A-Za-z]{1,10}$/).filter((s) => s.toLowerCase() !== 'bearer'),
        token68,
        (scheme, token) => {
          expect(parseBearerSecret(`${scheme} ${token}`)).toBeUndefined();
        },
      ),
      RUNS,
    );
  });
});

describe('parseContentType — properties', () => {
  it('never throws on any header; accepts only the two media types, with a charset TextDecoder knows, lower-cased', () => {
    fc.assert(
      fc.property(fc.oneof(headerValue, fc.string()), (header) => {
        const result = parseContentType(header);
        if (isRejection(result)) {
          expect(result.code).toBe('unsupported_media_type');
          return;
        }
        expect(['application/json', 'text/plain']).toContain(result.mediaType);
        expect(result.charset).toBe(result.charset.toLowerCase());
        expect(() => new TextDecoder(result.charset)).not.toThrow();
      }),
      RUNS,
    );
  });

  it('accepts both media types in any case, with or without a charset parameter in any case', () => {
    const charset = fc.constantFrom('utf-8', 'UTF-8', 'utf8', 'iso-8859-1', 'latin1', 'utf-16le', 'windows-1252');
    fc.assert(
      fc.property(
        fc.mixedCase(fc.constantFrom('application/json', 'text/plain')),
        fc.option(fc.tuple(fc.mixedCase(fc.constant('charset')), charset, fc.boolean())),
        (mediaType, parameter) => {
          const header =
            parameter === null ? mediaType : `${mediaType}; ${parameter[0]}=${parameter[2] ? `"${parameter[1]}"` : parameter[1]}`;
          const result = parseContentType(header);
          if (isRejection(result)) throw new Error(`${header} was refused: ${result.detail}`);
          expect(result.mediaType).toBe(mediaType.toLowerCase());
          expect(result.charset).toBe(parameter === null ? 'utf-8' : parameter[1].toLowerCase());
        },
      ),
      RUNS,
    );
  });

  it('refuses every other media type', () => {
    const token = fc.stringMatching(/^[a-z0-9][a-z0-9.+-]{0,15}$/);
    fc.assert(
      fc.property(token, token, (type, subtype) => {
        fc.pre(`${type}/${subtype}` !== 'application/json' && `${type}/${subtype}` !== 'text/plain');
        expect(isRejection(parseContentType(`${type}/${subtype}`))).toBe(true);
      }),
      RUNS,
    );
  });
});

describe('parseIdempotencyKey — properties', () => {
  it('accepts exactly 1 to 255 visible ASCII characters and returns them unchanged', () => {
    const visible = fc.string({
      unit: fc.integer({ min: 0x21, max: 0x7e }).map((code) => String.fromCharCode(code)),
      minLength: 1,
      maxLength: 255,
    });
    fc.assert(
      fc.property(visible, (key) => {
        expect(parseIdempotencyKey(key)).toBe(key);
      }),
      RUNS,
    );
  });

  it('refuses any key with a character outside visible ASCII, an empty key and a key longer than 255', () => {
    const outside = fc
      .oneof(fc.integer({ min: 0, max: 0x20 }), fc.integer({ min: 0x7f, max: 0xffff }))
      .map((code) => String.fromCharCode(code));
    const withOutsider = fc.tuple(fc.string({ maxLength: 20 }), outside, fc.string({ maxLength: 20 })).map(([a, c, b]) => a + c + b);
    const tooLong = fc.stringMatching(/^[a-z]{256,300}$/);
    fc.assert(
      fc.property(fc.oneof(withOutsider, tooLong, fc.constant('')), (key) => {
        const result = parseIdempotencyKey(key);
        expect(isRejection(result) && result.code).toBe('invalid_idempotency_key');
      }),
      RUNS,
    );
  });
});
