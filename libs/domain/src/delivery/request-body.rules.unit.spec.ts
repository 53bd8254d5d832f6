import { isRejection, type RejectionCode } from '../shared/decision';
import { MAX_JSON_DEPTH, extractRequest, extractSignedRequest, type ExtractedRequest, type RequestBody } from './request-body.rules';
import type { ParsedContentType } from './request-headers.rules';
import { canonicalJson } from './json-canonical.format';

const JSON_UTF8: ParsedContentType = { mediaType: 'application/json', charset: 'utf-8' };
const TEXT_UTF8: ParsedContentType = { mediaType: 'text/plain', charset: 'utf-8' };

function body(content: string | Buffer, contentType: ParsedContentType = JSON_UTF8, accountHeader?: string): RequestBody {
  return { bytes: typeof content === 'string' ? Buffer.from(content, 'utf8') : content, contentType, accountHeader };
}

/** The payload and the selection (the parsed body handed on for idempotency is checked on its own below). */
function accepted(request: RequestBody): Omit<ExtractedRequest, 'json'> {
  const result = extractRequest(request);
  if (isRejection(result)) throw new Error(`expected the request to be accepted, got ${result.code}: ${result.detail}`);
  const { payload, accountSelection } = result;
  return { payload, accountSelection };
}

function rejectionOf(request: RequestBody): RejectionCode | 'accepted' {
  const result = extractRequest(request);
  return isRejection(result) ? result.code : 'accepted';
}

const jsonPayload = (request: RequestBody): string => {
  const { payload } = accepted(request);
  if (payload.format !== 'json') throw new Error(`expected a json payload, got ${payload.format}`);
  return payload.json;
};

describe('extractRequest — JSON bodies (spec rule 5)', () => {
  it('given JSON, then the whole parsed body is handed on (what a repeat of the key is compared on); text hands on none', () => {
    const result = extractRequest(body('{"data":{"n":12345678901234567890},"account_email":"a@example.com"}'));
    if (isRejection(result)) throw new Error(result.code);
    expect(canonicalJson(result.json)).toBe(
      '{"account_email":"a@example.com","data":{"n":{"\\u0000exact-number":"1234567890123456789e1"}}}',
    );
    const text = extractRequest(body('{"a":1}', TEXT_UTF8));
    expect(isRejection(text) ? text.code : text.json).toBeUndefined();
  });

  it('given data, then the payload is the value of data', () => {
    expect(accepted(body('{"data":{"order":42,"items":["a","b"]},"other":true}'))).toEqual({
      payload: { format: 'json', json: '{"order":42,"items":["a","b"]}' },
      accountSelection: undefined,
    });
  });

  it('given no data, then the payload is the whole body', () => {
    expect(jsonPayload(body('{"order":42,"note":"hi"}'))).toBe('{"order":42,"note":"hi"}');
  });

  it('given data: null, then data is present and the payload is null', () => {
    expect(jsonPayload(body('{"data":null,"x":1}'))).toBe('null');
  });

  it.each([
    ['a string', '{"data":"hello"}', '"hello"'],
    ['a number', '{"data":7}', '7'],
    ['false', '{"data":false}', 'false'],
    ['an empty object', '{"data":{}}', '{}'],
    ['an empty array', '{"data":[]}', '[]'],
  ])('given data that is %s, then the payload is exactly that value', (_case, text, expected) => {
    expect(jsonPayload(body(text))).toBe(expected);
  });

  it('given a key named data only inside a nested object, then the payload is the whole body', () => {
    expect(jsonPayload(body('{"event":{"data":1}}'))).toBe('{"event":{"data":1}}');
  });

  it('given an empty object, then the payload is the empty object', () => {
    expect(jsonPayload(body('{}'))).toBe('{}');
  });

  it('drops only insignificant whitespace', () => {
    expect(jsonPayload(body(' {\n  "data" : { "a" : [ 1 , 2 ] , "s" : "x y" }\n} '))).toBe('{"a":[1,2],"s":"x y"}');
  });

  it.each([
    ['an array', '[1,{"data":2},"x"]', '[1,{"data":2},"x"]'],
    ['a string', '"just a string"', '"just a string"'],
    ['a number', '42', '42'],
    ['a 20-digit number', '12345678901234567890', '12345678901234567890'],
    ['true', 'true', 'true'],
    ['null', 'null', 'null'],
  ])('given a top-level %s, then the payload is that value and there is no account selection', (_case, text, expected) => {
    expect(accepted(body(text))).toEqual({ payload: { format: 'json', json: expected }, accountSelection: undefined });
  });

  it('keeps 20-digit numbers exactly in the JSON text', () => {
    const json = jsonPayload(body('{"data":{"id":12345678901234567890,"neg":-98765432109876543210}}'));
    expect(json).toBe('{"id":12345678901234567890,"neg":-98765432109876543210}');
  });

  it('keeps numbers that do not survive a double exactly as written', () => {
    expect(jsonPayload(body('{"data":[0.1000000000000000055511151231257827,1e400,9007199254740993]}'))).toBe(
      '[0.1000000000000000055511151231257827,1e400,9007199254740993]',
    );
  });

  it('keeps a 20-digit number exactly when the whole body is the payload', () => {
    expect(jsonPayload(body('{"n":12345678901234567890}'))).toBe('{"n":12345678901234567890}');
  });

  it('keeps unicode text (the payload is re-encoded as valid JSON)', () => {
    const json = jsonPayload(body('{"data":{"name":"Zoë 🚀","esc":"a\\"b\\\\c\\u0001"}}'));
    expect(JSON.parse(json)).toEqual({ name: 'Zoë 🚀', esc: 'a"b\\c\u0001' });
  });

  it('keeps a lone surrogate escaped, so the payload text stays well-formed', () => {
    expect(jsonPayload(body('{"data":"\\ud800"}'))).toBe('"\\ud800"');
  });

  it.each([
    ['duplicate keys with different values', '{"a":1,"a":2}'],
    ['duplicate data keys', '{"data":1,"data":2}'],
    ['duplicate keys in a nested object', '{"data":{"k":"x","k":"y"}}'],
    ['an empty body', ''],
    ['only whitespace', '   '],
    ['a truncated object', '{"data":'],
    ['trailing content', '{"a":1} x'],
    ['two values', '{} {}'],
    ['single quotes', "{'a':1}"],
    ['a trailing comma', '{"a":1,}'],
    ['NaN', '{"a":NaN}'],
    ['a comment', '{"a":1 /* c */}'],
    ['an unquoted key', '{a:1}'],
  ])('given %s, then invalid_json', (_case, text) => {
    expect(rejectionOf(body(text))).toBe('invalid_json');
  });

  describe('nesting depth', () => {
    const nested = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth);
    const nestedObjects = (depth: number): string => '{"a":'.repeat(depth - 1) + '{}' + '}'.repeat(depth - 1);

    it(`accepts arrays nested exactly MAX_JSON_DEPTH (${MAX_JSON_DEPTH}) deep`, () => {
      expect(jsonPayload(body(nested(MAX_JSON_DEPTH)))).toBe(nested(MAX_JSON_DEPTH));
    });

    it('refuses arrays nested deeper than MAX_JSON_DEPTH with invalid_json', () => {
      expect(rejectionOf(body(nested(MAX_JSON_DEPTH + 1)))).toBe('invalid_json');
    });

    it('refuses objects nested deeper than MAX_JSON_DEPTH with invalid_json', () => {
      expect(rejectionOf(body(nestedObjects(MAX_JSON_DEPTH + 1)))).toBe('invalid_json');
    });

    it('refuses very deep nesting (no stack overflow escapes) with invalid_json', () => {
      expect(rejectionOf(body(nested(200_000)))).toBe('invalid_json');
      expect(rejectionOf(body('['.repeat(200_000)))).toBe('invalid_json');
    });

    it('does not count brackets inside strings', () => {
      const text = `{"data":"${'['.repeat(MAX_JSON_DEPTH + 10)}\\"${'{'.repeat(MAX_JSON_DEPTH + 10)}"}`;
      expect(jsonPayload(body(text))).toBe(`"${'['.repeat(MAX_JSON_DEPTH + 10)}\\"${'{'.repeat(MAX_JSON_DEPTH + 10)}"`);
    });
  });

  describe('__proto__ keys are plain data', () => {
    afterEach(() => {
      expect(({} as Record<string, unknown>)['account_email']).toBeUndefined();
      expect(({} as Record<string, unknown>)['data']).toBeUndefined();
    });

    it('given a __proto__ key carrying account_email, then it selects no account and stays in the payload', () => {
      const result = accepted(body('{"__proto__":{"account_email":"evil@example.com"},"x":1}'));
      expect(result.accountSelection).toBeUndefined();
      expect(result.payload).toEqual({ format: 'json', json: '{"__proto__":{"account_email":"evil@example.com"},"x":1}' });
    });

    it('given a __proto__ key carrying data, then data is not present and the payload is the whole body', () => {
      expect(jsonPayload(body('{"__proto__":{"data":"x"}}'))).toBe('{"__proto__":{"data":"x"}}');
    });

    it('given a __proto__ key inside data, then the payload keeps it', () => {
      expect(jsonPayload(body('{"data":{"__proto__":{"polluted":true}}}'))).toBe('{"__proto__":{"polluted":true}}');
      expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    });

    it('given keys named like Object.prototype members, then they are plain data', () => {
      expect(jsonPayload(body('{"constructor":1,"toString":2,"hasOwnProperty":3}'))).toBe(
        '{"constructor":1,"toString":2,"hasOwnProperty":3}',
      );
    });
  });

  describe('account_email', () => {
    it('given a string account_email and data, then it is the selection and data is the payload', () => {
      expect(accepted(body('{"account_email":"Ops@Example.com","data":{"a":1}}'))).toEqual({
        payload: { format: 'json', json: '{"a":1}' },
        accountSelection: 'Ops@Example.com',
      });
    });

    it('given a string account_email and no data, then the whole body (including account_email) is the payload', () => {
      expect(accepted(body('{"account_email":"ops@example.com","a":1}'))).toEqual({
        payload: { format: 'json', json: '{"account_email":"ops@example.com","a":1}' },
        accountSelection: 'ops@example.com',
      });
    });

    it('keeps the selection exactly as sent (no trimming or case change)', () => {
      expect(accepted(body('{"account_email":" Ops@Example.com ","data":1}')).accountSelection).toBe(' Ops@Example.com ');
    });

    it('given an empty string, then it is a selection (that will not match)', () => {
      expect(accepted(body('{"account_email":"","data":1}')).accountSelection).toBe('');
    });

    it('given account_email only inside data, then there is no selection', () => {
      expect(accepted(body('{"data":{"account_email":"ops@example.com"}}')).accountSelection).toBeUndefined();
    });

    it.each([
      ['a number', '{"account_email":42}'],
      ['a big number', '{"account_email":12345678901234567890}'],
      ['null', '{"account_email":null,"data":1}'],
      ['true', '{"account_email":true}'],
      ['an object', '{"account_email":{"email":"ops@example.com"}}'],
      ['an array', '{"account_email":["ops@example.com"]}'],
    ])('given account_email as %s, then invalid_account_email', (_case, text) => {
      expect(rejectionOf(body(text))).toBe('invalid_account_email');
    });

    it('given a JSON body and the account header, then account_header_requires_text', () => {
      expect(rejectionOf(body('{"data":1}', JSON_UTF8, 'ops@example.com'))).toBe('account_header_requires_text');
    });

    it('given a JSON body, the account header and account_email, then account_header_requires_text', () => {
      expect(rejectionOf(body('{"account_email":"ops@example.com"}', JSON_UTF8, 'ops@example.com'))).toBe('account_header_requires_text');
    });
  });
});

describe('extractRequest — text bodies (spec rule 6)', () => {
  it('given text, then the payload is the raw text, unchanged', () => {
    const raw = '  line one\r\nline two\t\n{"data":1}\n  ';
    expect(accepted(body(raw, TEXT_UTF8))).toEqual({ payload: { format: 'text', text: raw }, accountSelection: undefined });
  });

  it('given text that looks like JSON, then it is still raw text (no data extraction)', () => {
    expect(accepted(body('{"data":{"a":1},"account_email":"x@example.com"}', TEXT_UTF8))).toEqual({
      payload: { format: 'text', text: '{"data":{"a":1},"account_email":"x@example.com"}' },
      accountSelection: undefined,
    });
  });

  it('given an empty text body, then the payload is the empty string', () => {
    expect(accepted(body('', TEXT_UTF8)).payload).toEqual({ format: 'text', text: '' });
  });

  it('given unicode text, then it is decoded', () => {
    expect(accepted(body('Grüße 🚀', TEXT_UTF8)).payload).toEqual({ format: 'text', text: 'Grüße 🚀' });
  });

  it('given a UTF-8 byte order mark at the start of text, then it is kept: the payload is the raw text', () => {
    const withBom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('alert')]);
    expect(accepted(body(withBom, TEXT_UTF8)).payload).toEqual({ format: 'text', text: '\ufeffalert' });
    expect(
      accepted(
        body(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('hi', 'utf16le')]), { mediaType: 'text/plain', charset: 'utf-16le' }),
      ).payload,
    ).toEqual({ format: 'text', text: '\ufeffhi' });
  });

  it('given the account header, then it is the selection, exactly as sent', () => {
    expect(accepted(body('hello', TEXT_UTF8, 'Ops@Example.com'))).toEqual({
      payload: { format: 'text', text: 'hello' },
      accountSelection: 'Ops@Example.com',
    });
  });
});

describe('extractRequest — encodings', () => {
  it('given a JSON body that starts with a UTF-8 byte order mark, then the mark is not part of the JSON (RFC 8259 §8.1 lets a parser ignore it)', () => {
    expect(jsonPayload(body(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"data":1}')])))).toBe('1');
  });

  const invalidUtf8 = Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d]); // {"a":"\xC3("}

  it.each([
    ['a JSON body', JSON_UTF8],
    ['a text body', TEXT_UTF8],
  ])('given invalid UTF-8 in %s, then invalid_encoding', (_case, contentType) => {
    expect(rejectionOf(body(invalidUtf8, contentType))).toBe('invalid_encoding');
  });

  it.each([
    ['a lone continuation byte', [0x80]],
    ['an overlong encoding', [0xc0, 0xaf]],
    ['a truncated sequence', [0xe2, 0x82]],
    ['an encoded surrogate', [0xed, 0xa0, 0x80]],
  ])('given %s in a text body, then invalid_encoding', (_case, bytes) => {
    expect(rejectionOf(body(Buffer.from(bytes), TEXT_UTF8))).toBe('invalid_encoding');
  });

  it('decodes a latin1 text body', () => {
    const bytes = Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x20, 0xdf]); // "café ß" in ISO-8859-1
    expect(accepted(body(bytes, { mediaType: 'text/plain', charset: 'latin1' })).payload).toEqual({
      format: 'text',
      text: 'café ß',
    });
  });

  it('decodes a latin1 JSON body', () => {
    const bytes = Buffer.from([0x7b, 0x22, 0x64, 0x61, 0x74, 0x61, 0x22, 0x3a, 0x22, 0xe9, 0x22, 0x7d]); // {"data":"é"}
    const json = jsonPayload(body(bytes, { mediaType: 'application/json', charset: 'iso-8859-1' }));
    expect(JSON.parse(json)).toBe('é');
  });

  it('does not read latin1 bytes as UTF-8', () => {
    const bytes = Buffer.from([0x63, 0x61, 0x66, 0xe9]);
    expect(rejectionOf(body(bytes, TEXT_UTF8))).toBe('invalid_encoding');
  });
});

describe('extractSignedRequest — a signed delivery is the whole body', () => {
  const jsonType = { mediaType: 'application/json', charset: 'utf-8' } as const;

  it("keeps a provider's data member and account_email inside the payload, selecting no account", () => {
    const extracted = extractSignedRequest({
      bytes: Buffer.from('{"type":"a.b","data":{"x":1},"account_email":"x@example.com"}'),
      contentType: jsonType,
    });
    expect(extracted).toMatchObject({
      payload: { format: 'json', json: '{"type":"a.b","data":{"x":1},"account_email":"x@example.com"}' },
      accountSelection: undefined,
    });
  });

  it('keeps text as text and refuses invalid JSON and invalid encodings as the spec does', () => {
    expect(extractSignedRequest({ bytes: Buffer.from('hello'), contentType: { mediaType: 'text/plain', charset: 'utf-8' } })).toMatchObject(
      {
        payload: { format: 'text', text: 'hello' },
      },
    );
    expect(extractSignedRequest({ bytes: Buffer.from('{'), contentType: jsonType })).toMatchObject({ code: 'invalid_json' });
    expect(extractSignedRequest({ bytes: Buffer.from([0xff, 0xfe, 0x7b]), contentType: jsonType })).toMatchObject({
      code: 'invalid_encoding',
    });
  });
});
