/** RFC 3339's date-time (§5.6): YYYY-MM-DDThh:mm:ss[.fraction] then Z or ±hh:mm (T and Z upper case). */
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|[+-](\d{2}):(\d{2}))$/;

/**
 * Whether `value` is an RFC 3339 date-time naming a real instant: every field in its range (a 31st
 * of February or a 24th hour is refused, not rolled over into the next month or day; RFC 3339's
 * leap second 60 is refused too, as the platform cannot read it) and readable by Date.parse.
 */
export function isRfc3339DateTime(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const match = DATE_TIME.exec(value);
  if (!match) return false;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const offsetHour = Number(match[9] ?? 0);
  const offsetMinute = Number(match[10] ?? 0);
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const inRange =
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= daysInMonth &&
    hour <= 23 &&
    minute <= 59 &&
    second <= 59 &&
    offsetHour <= 23 &&
    offsetMinute <= 59;
  return inRange && !Number.isNaN(Date.parse(value));
}
