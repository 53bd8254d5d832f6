/**
 * `Date.prototype.toISOString`, as fast as the relay's hot path needs it: every message carries its
 * event's time (`ce_time`), and the built-in formats it in about a microsecond. The day's prefix
 * (`YYYY-MM-DDT`) is made once per UTC day; the rest is arithmetic and a lookup. Byte-identical to
 * `toISOString()` (RFC 3339, UTC, milliseconds, `Z`), which it falls back to outside years
 * 0000–9999 (never a stored event's) and throws as it does on an invalid date.
 */
const DAY_MS = 86_400_000;
/** 0000-01-01T00:00:00.000Z and 10000-01-01T00:00:00.000Z. */
const FIRST_MS = -62_167_219_200_000;
const END_MS = 253_402_300_800_000;
const TWO_DIGITS = Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0'));
const THREE_DIGITS = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));

let dayStart = Number.NaN;
let dayPrefix = '';

export function rfc3339(at: Date): string {
  const ms = at.getTime();
  if (!(ms >= FIRST_MS && ms < END_MS)) return at.toISOString();
  if (!(ms >= dayStart && ms < dayStart + DAY_MS)) {
    dayStart = ms - (((ms % DAY_MS) + DAY_MS) % DAY_MS);
    dayPrefix = new Date(dayStart).toISOString().slice(0, 11);
  }
  let rest = ms - dayStart;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  return `${dayPrefix}${TWO_DIGITS[hours]}:${TWO_DIGITS[minutes]}:${TWO_DIGITS[seconds]}.${THREE_DIGITS[rest - seconds * 1000]}Z`;
}
