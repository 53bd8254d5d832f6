import { canonicalize } from 'json-canonicalize';
import { isLosslessNumber, type LosslessNumber } from 'lossless-json';

/**
 * Stands for a number a double cannot hold (more digits than IEEE 754 keeps, or out of its
 * range). RFC 8785 serialises numbers as doubles, which would make two bodies that differ only in
 * a twentieth digit "the same request" — yet the service keeps every digit and the run would see a
 * different payload. Such a number keeps its exact decimal value instead, in one spelling
 * (significant digits and a power of ten); the key starts with a NUL, which no ordinary JSON body uses.
 */
class ExactNumber {
  constructor(private readonly text: string) {}

  toJSON(): Record<string, string> {
    return { '\u0000exact-number': exactDecimal(this.text) };
  }
}

/** Whether the double nearest to `text` is the very decimal it spells (then RFC 8785's number form is exact). */
function heldByDouble(text: string): boolean {
  const double = Number(text);
  return Number.isFinite(double) && exactDecimal(String(double)) === exactDecimal(text);
}

/** `-1234.50e2` → `-12345e1`: the same value always spelled the same way. */
function exactDecimal(text: string): string {
  const parts = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!parts) return text;
  const [, sign, whole, fraction = '', exponent = '0'] = parts;
  let digits = (whole + fraction).replace(/^0+/, '');
  if (digits === '') return '0';
  const trailing = digits.length - digits.replace(/0+$/, '').length;
  digits = digits.slice(0, digits.length - trailing);
  return `${sign}${digits}e${BigInt(exponent) - BigInt(fraction.length) + BigInt(trailing)}`;
}

/**
 * The RFC 8785 (JSON Canonicalization Scheme) form of a value parsed by lossless-json: members
 * sorted by their UTF-16 code units, no whitespace, strings and numbers in ECMAScript's shortest
 * form — so member order, whitespace, escapes and number spellings (`1.0`, `1e0`) do not change it,
 * while any difference of value does. Serialised by json-canonicalize.
 */
export function canonicalJson(value: unknown): string {
  return canonicalize(toCanonicalInput(value));
}

function toCanonicalInput(value: unknown): unknown {
  if (isLosslessNumber(value)) {
    const text = (value as LosslessNumber).value;
    return heldByDouble(text) ? Number(text) : new ExactNumber(text);
  }
  if (Array.isArray(value)) return value.map(toCanonicalInput);
  if (typeof value === 'object' && value !== null) {
    const copy: Record<string, unknown> = {};
    for (const [key, member] of Object.entries(value)) {
      Object.defineProperty(copy, key, { value: toCanonicalInput(member), enumerable: true, writable: true, configurable: true });
    }
    return copy;
  }
  return value;
}
