import { LosslessNumber, parse } from 'lossless-json';
import { reject, type Rejection } from '../shared/decision';
import {
  BACKSLASH,
  CLOSE_ARRAY,
  CLOSE_OBJECT,
  COMMA,
  MINUS,
  OPEN_ARRAY,
  OPEN_OBJECT,
  QUOTE,
  nestsDeeperThan,
} from '../shared/json-text.rules';

/** JSON nested deeper than this is refused: a documented limit, not a stack-dependent one. */
export const MAX_JSON_DEPTH = 512;

/**
 * A JSON body as parsed: what a repeat is compared on. A number is a plain number when its
 * JavaScript spelling is its text (`42`, `0.5`), else a LosslessNumber keeping its text exactly
 * (`1.0`, `1e2`, 20 digits): either way it is written back as sent. `jsonIsPlain`: no
 * LosslessNumber in it, so its values are JSON.parse's.
 */
export interface ParsedJsonBody {
  readonly json: unknown;
  readonly jsonIsPlain: boolean;
}

/**
 * Parses a JSON body as lossless-json does (every number kept as written; a member named twice
 * with different values refused; its messages for what is not JSON), natively when that gives the
 * same value: one pass over the text finds its depth within MAX_JSON_DEPTH, every number spelled
 * as JavaScript spells it, and no object naming a member twice (a name with an escape is not
 * judged) — then JSON.parse builds the very tree the lossless parse would, several times faster.
 * Anything else, or text JSON.parse refuses, takes the lossless parse.
 */
export function parseJsonBody(text: string): ParsedJsonBody | Rejection {
  if (nativeParseIsExact(text)) {
    try {
      return { json: JSON.parse(text) as unknown, jsonIsPlain: true };
    } catch {
      // Not JSON: the lossless parse below words why.
    }
  }
  return parseLossless(text);
}

function parseLossless(text: string): ParsedJsonBody | Rejection {
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
    return reject('invalid_json', `JSON nested deeper than ${MAX_JSON_DEPTH} levels is not accepted`);
  }
  let jsonIsPlain = true;
  const parseNumber = (digits: string): number | LosslessNumber => {
    if (spelledAsJavaScript(digits)) return Number(digits);
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

/** Whether a JSON number's text is how JavaScript spells its value: a plain number then loses nothing. */
function spelledAsJavaScript(digits: string): boolean {
  return String(Number(digits)) === digits;
}

/** A member name list switches to a Set past this many names (a linear look-up is faster below). */
const LINEAR_NAMES = 16;

/**
 * Whether JSON.parse of `text` gives exactly the lossless parse's value (see parseJsonBody). It
 * does not validate: text that is not JSON may pass, and JSON.parse then refuses it.
 */
function nativeParseIsExact(text: string): boolean {
  // Per open bracket: the member names an object has shown so far; null for an array.
  const open: (string[] | Set<string> | null)[] = [];
  let expectName = false;
  // Strings are skipped with indexOf (native); the next backslash is looked up once per stretch.
  let backslash = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const start = i + 1;
      if (backslash !== Infinity && backslash < start) {
        backslash = text.indexOf('\\', start);
        if (backslash === -1) backslash = Infinity;
      }
      let end = text.indexOf('"', start);
      if (end === -1) return false;
      const escaped = backslash < end;
      if (escaped) end = closingQuote(text, backslash);
      i = end;
      if (!expectName) continue;
      expectName = false;
      if (escaped || !addName(open, text.slice(start, end))) return false;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (open.length === MAX_JSON_DEPTH) return false;
      open.push(c === OPEN_OBJECT ? [] : null);
      expectName = c === OPEN_OBJECT;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      open.pop();
      expectName = false;
    } else if (c === COMMA) {
      expectName = open.length > 0 && open[open.length - 1] !== null;
    } else if (c === MINUS || (c >= 0x30 && c <= 0x39)) {
      const start = i;
      while (i + 1 < text.length && isNumberCharacter(text.charCodeAt(i + 1))) i++;
      if (!spelledAsJavaScript(text.slice(start, i + 1))) return false;
    }
  }
  return true;
}

/** The closing quote of a string with an escape at `from` (the text's length when there is none). */
function closingQuote(text: string, from: number): number {
  let i = from;
  for (; i < text.length; i++) {
    const d = text.charCodeAt(i);
    if (d === BACKSLASH) i++;
    else if (d === QUOTE) break;
  }
  return i;
}

/** Records a member name in the innermost object; false when that object named it already. */
function addName(open: (string[] | Set<string> | null)[], name: string): boolean {
  const names = open[open.length - 1];
  if (!names) return false;
  if (names instanceof Set) {
    if (names.has(name)) return false;
    names.add(name);
    return true;
  }
  if (names.includes(name)) return false;
  names.push(name);
  if (names.length > LINEAR_NAMES) open[open.length - 1] = new Set(names);
  return true;
}

function isNumberCharacter(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || c === 0x2e || c === 0x65 || c === 0x45 || c === 0x2b || c === MINUS;
}
