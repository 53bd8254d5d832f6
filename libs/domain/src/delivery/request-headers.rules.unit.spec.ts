import { isRejection } from '../shared/decision';
import { parseBearerSecret, parseContentType, parseIdempotencyKey } from './request-headers.rules';

const SECRET = 'whsec_AbC-_09' + 'x'.repeat(36);

describe('parseBearerSecret', () => {
  it('reads the secret after "Bearer "', () => {
    expect(parseBearerSecret(`Bearer ${SECRET}`)).toBe(SECRET);
  });

  it.each(['bearer', 'BEARER', 'BeArEr'])('treats the scheme word case-insensitively: %s', (scheme) => {
    expect(parseBearerSecret(`${scheme} ${SECRET}`)).toBe(SECRET);
  });

  it('allows several spaces between the scheme and the token', () => {
    expect(parseBearerSecret(`Bearer    ${SECRET}`)).toBe(SECRET);
  });

  it('allows trailing spaces after the token', () => {
    expect(parseBearerSecret(`Bearer ${SECRET}  `)).toBe(SECRET);
  });

  it('keeps the token exactly (no case change)', () => {
    expect(parseBearerSecret('Bearer whsec_ABCdef')).toBe('whsec_ABCdef');
  });

  it('accepts token68 characters, including trailing =', () => {
    expect(parseBearerSecret('Bearer a.b~c+d/e-f_g==')).toBe('a.b~c+d/e-f_g==');
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['the scheme only', 'Bearer'],
    ['the scheme and a space', 'Bearer '],
    ['the scheme and spaces', 'Bearer    '],
    ['a Basic scheme', `Basic ${SECRET}`],
    ['no scheme', SECRET],
    ['no space after the scheme', `Bearer${SECRET}`],
    ['a tab instead of a space', `Bearer\t${SECRET}`],
    ['two tokens', `Bearer ${SECRET} ${SECRET}`],
    ['a token with a comma', `Bearer ${SECRET},x`],
    ['a token with a quote', `Bearer "${SECRET}"`],
    ['a token with = inside', 'Bearer ab=cd'],
    ['a scheme with a prefix', `XBearer ${SECRET}`],
    ['a newline after the token', `Bearer ${SECRET}\n`],
  ])('presents no secret when the header is %s', (_case, header) => {
    expect(parseBearerSecret(header)).toBeUndefined();
  });
});

describe('parseContentType', () => {
  it.each([
    ['application/json', 'application/json', 'utf-8'],
    ['text/plain', 'text/plain', 'utf-8'],
    ['application/json; charset=utf-8', 'application/json', 'utf-8'],
    ['application/json;charset=UTF-8', 'application/json', 'utf-8'],
    ['text/plain; charset="utf-8"', 'text/plain', 'utf-8'],
    ['text/plain; charset=ISO-8859-1', 'text/plain', 'iso-8859-1'],
    ['text/plain; charset=latin1', 'text/plain', 'latin1'],
    ['APPLICATION/JSON', 'application/json', 'utf-8'],
    ['Text/Plain; Charset=UTF-8', 'text/plain', 'utf-8'],
    ['application/json; foo=bar', 'application/json', 'utf-8'],
  ])('accepts %j', (header, mediaType, charset) => {
    expect(parseContentType(header)).toEqual({ mediaType, charset });
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['blank', '   '],
    ['multipart/form-data', 'multipart/form-data; boundary=xyz'],
    ['form-urlencoded', 'application/x-www-form-urlencoded'],
    ['text/html', 'text/html'],
    ['application/xml', 'application/xml'],
    ['a json suffix type', 'application/vnd.api+json'],
    ['a wildcard', '*/*'],
    ['a bare type', 'application'],
    ['garbage', 'not a media type'],
    ['a trailing semicolon with nothing after it', 'application/json;'],
    ['a parameter without a value', 'application/json; charset'],
    ['an unknown charset', 'application/json; charset=klingon'],
    ['an unknown charset on text', 'text/plain; charset=x-made-up'],
  ])('refuses %s with unsupported_media_type', (_case, header) => {
    const result = parseContentType(header);
    expect(isRejection(result)).toBe(true);
    expect(isRejection(result) && result.code).toBe('unsupported_media_type');
  });
});

describe('parseIdempotencyKey', () => {
  it('is absent when the header is absent', () => {
    expect(parseIdempotencyKey(undefined)).toBeUndefined();
  });

  it.each([
    ['one character', 'a'],
    ['255 characters', 'k'.repeat(255)],
    ['a UUID', '3f2504e0-4f89-11d3-9a0c-0305e82c3301'],
    ['every visible ASCII character', Array.from({ length: 0x7e - 0x21 + 1 }, (_, i) => String.fromCharCode(0x21 + i)).join('')],
  ])('accepts %s and returns it unchanged', (_case, key) => {
    expect(parseIdempotencyKey(key)).toBe(key);
  });

  it.each([
    ['empty (0 characters)', ''],
    ['256 characters', 'k'.repeat(256)],
    ['a space inside', 'order 42'],
    ['a leading space', ' order-42'],
    ['a trailing space', 'order-42 '],
    ['a tab', 'order\t42'],
    ['a trailing newline', 'order-42\n'],
    ['DEL', 'order\x7f42'],
    ['a NUL', 'order\x0042'],
    ['non-ASCII', 'bestellung-ü'],
    ['an emoji', 'order-🚀'],
  ])('refuses %s with invalid_idempotency_key', (_case, key) => {
    const result = parseIdempotencyKey(key);
    expect(isRejection(result)).toBe(true);
    expect(isRejection(result) && result.code).toBe('invalid_idempotency_key');
  });
});
