import fc from 'fast-check';
import { LosslessNumber, parse, stringify } from 'lossless-json';
import { isRejection, reject, type Rejection } from '../shared/decision';
import { MAX_JSON_DEPTH, parseJsonBody, type ParsedJsonBody } from './json-body.rules';

const RUNS = { numRuns: 2_000, seed: 10_028 };

/**
 * What parseJsonBody must always answer: the lossless parse alone (depth first, then lossless-json
 * with plain numbers where nothing is lost), as the body was parsed before the native path.
 */
function lossless(text: string): ParsedJsonBody | Rejection {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '[' || c === '{') {
      if (++depth > MAX_JSON_DEPTH) return reject('invalid_json', `JSON nested deeper than ${MAX_JSON_DEPTH} levels is not accepted`);
    } else if (c === ']' || c === '}') depth--;
  }
  let jsonIsPlain = true;
  try {
    const json = parse(text, null, (digits) => {
      if (String(Number(digits)) === digits) return Number(digits);
      jsonIsPlain = false;
      return new LosslessNumber(digits);
    });
    return { json, jsonIsPlain };
  } catch (error) {
    return reject('invalid_json', `the body is not valid JSON: ${(error as Error).message}`);
  }
}

function expectSameAsLossless(text: string): void {
  const fast = parseJsonBody(text);
  const reference = lossless(text);
  if (isRejection(reference)) {
    expect(fast).toEqual(reference);
    return;
  }
  if (isRejection(fast)) throw new Error(`refused ${fast.detail}, the lossless parse accepts ${text}`);
  expect(fast.jsonIsPlain).toBe(reference.jsonIsPlain);
  expect(fast.json).toEqual(reference.json);
  // Written back: a plain tree natively, as the payload is, gives lossless-json's text.
  expect(fast.jsonIsPlain ? JSON.stringify(fast.json) : stringify(fast.json)).toBe(stringify(reference.json));
}

/** JSON-like text built to hit what the native path must hand over: repeated names, escapes, number spellings, nesting. */
const name = fc.constantFrom('a', 'b', 'data', '__proto__', '\\u0061', 'a\\"', 'ab', 'constructor', '');
const numberText = fc.oneof(
  fc.constantFrom('0', '-0', '1', '-5', '1.0', '0.10', '1e2', '1E-7', '2.5e+3', '1e400', '9007199254740993', '0.1', '123.456'),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((value) => JSON.stringify(value)),
  fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }).map(String),
);
const leaf = fc.oneof(numberText, fc.constantFrom('"x"', 'true', 'false', 'null', '"\\ud800"', '"a\\u0000b"', '""'));
const space = fc.constantFrom('', ' ', '\n\t');
const { value } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('value'), { maxLength: 4 }).map((items) => `[${items.join(',')}]`),
    fc
      .array(fc.tuple(name, space, tie('value')), { maxLength: 6 })
      .map((members) => `{${members.map(([key, gap, member]) => `"${key}"${gap}:${gap}${String(member)}`).join(',')}}`),
  ),
}));

describe('parseJsonBody: the native path gives exactly what the lossless parse gives', () => {
  it('any JSON document (fast-check json)', () => {
    fc.assert(fc.property(fc.json({ maxDepth: 6 }), expectSameAsLossless), RUNS);
  });

  it('documents with repeated member names, escaped names, every number spelling and nesting', () => {
    fc.assert(fc.property(value, expectSameAsLossless), RUNS);
  });

  it('text that is almost JSON, broken or deep', () => {
    const jsonish = fc
      .array(fc.oneof(fc.constantFrom(...'{}[]":,\\ 0-1e.tfnu'), fc.string({ maxLength: 2 })), { maxLength: 200 })
      .map((parts) => parts.join(''));
    fc.assert(fc.property(jsonish, expectSameAsLossless), RUNS);
  });

  it.each([
    ['a name repeated with another value', '{"a":1,"a":2}'],
    ['a name repeated with the same value', '{"a":1,"a":1}'],
    ['a name and its escaped spelling', '{"a":1,"\\u0061":2}'],
    ['a repeated name past the linear look-up', `{${Array.from({ length: 40 }, (_, i) => `"k${i}":${i}`).join(',')},"k3":0}`],
    ['a __proto__ member', '{"__proto__":{"data":1},"n":1}'],
    ['numbers a double spells otherwise', '[1.0,1e2,-0,12345678901234567890,1E5]'],
    ['nesting at the limit', `${'['.repeat(MAX_JSON_DEPTH)}${']'.repeat(MAX_JSON_DEPTH)}`],
    ['nesting past the limit', `${'['.repeat(MAX_JSON_DEPTH + 1)}${']'.repeat(MAX_JSON_DEPTH + 1)}`],
    ['brackets inside strings', `["${'['.repeat(MAX_JSON_DEPTH + 5)}"]`],
    ['unbalanced closing brackets', `]]${'['.repeat(MAX_JSON_DEPTH)}`],
    ['trailing text', '{"a":1} x'],
    ['an invalid escape', '{"a":"\\x"}'],
  ])('%s', (_case, text) => {
    expectSameAsLossless(text);
  });
});
