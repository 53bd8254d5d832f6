import { assertNever } from '@wts/contracts';
import { BACKSLASH, CLOSE_ARRAY, CLOSE_OBJECT, COLON, COMMA, MINUS, OPEN_ARRAY, OPEN_OBJECT, QUOTE } from '../shared/json-text.rules';

/**
 * A JSON checker and minifier that never recurses: accepts exactly what JSON.parse accepts,
 * copies every token as written (numbers keep every digit, key order and duplicates stay) and
 * drops only the whitespace between tokens. Deeply nested payloads cannot overflow the stack.
 */
/**
 * Validates JSON text (RFC 8259, the grammar JSON.parse accepts) and returns it with insignificant
 * whitespace removed. Every token is copied verbatim. Iterative, linear time, explicit stack.
 */
export function minifyJsonText(source: string): string {
  const out: string[] = [];
  const stack: Container[] = [];
  const length = source.length;
  let state: ParseState = 'value';
  let i = 0;

  const afterValue = (): ParseState => (stack.length === 0 ? 'end' : 'commaOrClose');

  for (;;) {
    while (i < length && isJsonWhitespace(source.charCodeAt(i))) i += 1;
    if (i >= length) {
      if (state === 'end') break;
      throw invalidJson('unexpected end of input', i);
    }
    if (state === 'end') throw invalidJson('unexpected content after the JSON value', i);

    const c = source.charCodeAt(i);
    if (closeAllowed(state) && c === closerOf(stack)) {
      state = closeContainer(stack, out);
      i += 1;
      continue;
    }
    switch (state) {
      case 'valueOrClose':
      case 'value': {
        if (c === OPEN_OBJECT) {
          stack.push('object');
          out.push('{');
          i += 1;
          state = 'keyOrClose';
        } else if (c === OPEN_ARRAY) {
          stack.push('array');
          out.push('[');
          i += 1;
          state = 'valueOrClose';
        } else if (c === QUOTE) {
          i = copyString(source, i, out);
          state = afterValue();
        } else if (c === MINUS || isDigit(c)) {
          NUMBER_PATTERN.lastIndex = i;
          const match = NUMBER_PATTERN.exec(source);
          if (match === null) throw invalidJson('malformed number', i);
          const number = match[0];
          out.push(number);
          i += number.length;
          state = afterValue();
        } else {
          const literal = LITERALS.find((word) => source.startsWith(word, i));
          if (literal === undefined) throw invalidJson('unexpected character', i);
          out.push(literal);
          i += literal.length;
          state = afterValue();
        }
        break;
      }
      case 'keyOrClose':
      case 'key': {
        if (c === QUOTE) {
          i = copyString(source, i, out);
          state = 'colon';
        } else {
          throw invalidJson('expected an object key', i);
        }
        break;
      }
      case 'colon': {
        if (c !== COLON) throw invalidJson("expected ':'", i);
        out.push(':');
        i += 1;
        state = 'value';
        break;
      }
      case 'commaOrClose': {
        const top = stack[stack.length - 1];
        if (c === COMMA) {
          out.push(',');
          i += 1;
          state = top === 'object' ? 'key' : 'value';
        } else {
          throw invalidJson("expected ',' or the end of the container", i);
        }
        break;
      }
      default:
        return assertNever(state);
    }
  }
  return out.join('');
}

type Container = 'array' | 'object';
type ParseState = 'value' | 'valueOrClose' | 'key' | 'keyOrClose' | 'colon' | 'commaOrClose' | 'end';

const NUMBER_PATTERN = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const LITERALS = ['true', 'false', 'null'] as const;
/** Characters allowed after a backslash other than 'u': " \ / b f n r t */
const SIMPLE_ESCAPES = new Set([0x22, 0x5c, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74]);
const HEX4_PATTERN = /^[0-9A-Fa-f]{4}$/;

/** Where the innermost container may end: right after it opens, or after one of its values. */
function closeAllowed(state: ParseState): boolean {
  return state === 'valueOrClose' || state === 'keyOrClose' || state === 'commaOrClose';
}

function closerOf(stack: readonly Container[]): number {
  return stack[stack.length - 1] === 'array' ? CLOSE_ARRAY : CLOSE_OBJECT;
}

/** Ends the innermost container (its ']' or '}'); returns what may follow it. */
function closeContainer(stack: Container[], out: string[]): ParseState {
  out.push(stack.pop() === 'array' ? ']' : '}');
  return stack.length === 0 ? 'end' : 'commaOrClose';
}

/** Copies the string literal starting at `start` (a '"') to `out`; returns the index after its closing quote. */
function copyString(source: string, start: number, out: string[]): number {
  let j = start + 1;
  for (;;) {
    if (j >= source.length) throw invalidJson('unterminated string', j);
    const c = source.charCodeAt(j);
    if (c === QUOTE) break;
    if (c < 0x20) throw invalidJson('raw control character in string', j);
    if (c === BACKSLASH) {
      const e = source.charCodeAt(j + 1);
      if (SIMPLE_ESCAPES.has(e)) {
        j += 2;
      } else if (e === 0x75 && HEX4_PATTERN.test(source.slice(j + 2, j + 6))) {
        j += 6;
      } else {
        throw invalidJson('invalid escape in string', j);
      }
    } else {
      j += 1;
    }
  }
  out.push(source.slice(start, j + 1));
  return j + 1;
}

function invalidJson(reason: string, position: number): SyntaxError {
  return new SyntaxError(`payload is not valid JSON: ${reason} at position ${position}`);
}

function isJsonWhitespace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}
