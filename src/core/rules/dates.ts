/**
 * Rules of dates and times on the wire: a donation's `closesAt` and the `startDate`/`endDate`
 * filters of the withdrawal list. Calendar dates are checked for real (2031-02-30 is refused, not
 * rolled over into March), hours, minutes and seconds for range, a UTC offset against the zones that
 * exist (−12:00 to +14:00), and the instant against what every store and serializer can hold: from
 * 1970 through the end of year 9999 (`DATE_RANGE`). Year 0 and year 10000 used to reach PostgreSQL,
 * which refused them with a 500; here they are an invalid date like any other.
 * Isomorphic: no DOM, no Node, no zod.
 */

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:(Z)|([+-])(\d{2}):?(\d{2}))?$/i;

/**
 * The instants a date may name: from the Unix epoch up to, not including, year 10000 (an ISO string of
 * year 10000 is `+010000-…`, which PostgreSQL does not read). An `endDate` of 9999-12-31 covers up to
 * the next midnight, so it is out of range too.
 */
export const DATE_RANGE = { min: Date.UTC(1970, 0, 1), max: Date.UTC(10000, 0, 1) } as const;

/** The offsets of the world's time zones, in minutes: UTC−12:00 (Baker Island) to UTC+14:00 (Line Islands). */
const OFFSET_MINUTES = { min: -12 * 60, max: 14 * 60 } as const;

const DAY_MS = 24 * 60 * 60 * 1000;

/** True when `at` (ms since the epoch) is an instant a date may name (`DATE_RANGE`). */
export function isInDateRange(at: number): boolean {
  return at >= DATE_RANGE.min && at < DATE_RANGE.max;
}

/** The instant of a calendar day at midnight UTC, or null when `year-month-day` is not a day of the calendar. */
function calendarDay(year: number, month: number, day: number): number | null {
  if (month < 1 || month > 12 || day < 1) return null;
  const at = new Date(Date.UTC(2000, month - 1, day));
  at.setUTCFullYear(year); // Date.UTC maps years 0–99 to 1900–1999
  return at.getUTCMonth() === month - 1 && at.getUTCDate() === day ? at.getTime() : null;
}

/**
 * Reads an ISO 8601 date-time (`2030-01-31T18:00:00Z`; UTC when it has no offset), or null when it
 * is not one: a real calendar day, hours ≤ 23, minutes and seconds ≤ 59, an offset of a real time zone,
 * and an instant in `DATE_RANGE`.
 */
export function parseDateTime(value: string): Date | null {
  const match = DATE_TIME.exec(value.trim());
  if (!match) return null;
  const [, year, month, day, hours, minutes, seconds = '0', fraction = '', , sign, offsetHours, offsetMinutes] = match;
  const midnight = calendarDay(Number(year), Number(month), Number(day));
  if (midnight === null || Number(hours) > 23 || Number(minutes) > 59 || Number(seconds) > 59) return null;
  let offset = 0;
  if (sign) {
    if (Number(offsetMinutes) > 59) return null;
    offset = (sign === '-' ? -1 : 1) * (Number(offsetHours) * 60 + Number(offsetMinutes));
    if (offset < OFFSET_MINUTES.min || offset > OFFSET_MINUTES.max) return null;
  }
  const at = midnight + ((Number(hours) * 60 + Number(minutes) - offset) * 60 + Number(seconds)) * 1000 + Number(fraction.padEnd(3, '0').slice(0, 3));
  return isInDateRange(at) ? new Date(at) : null;
}

/** One end of a date filter: the instant, and whether the filter stops just before it. */
export interface DateBound {
  at: Date;
  exclusive: boolean;
}

/**
 * Reads a `startDate`/`endDate` filter: an ISO date (`2025-01-31`, a whole UTC day) or date-time.
 * Both ends are inclusive, so an `endDate` that is a date covers that whole day (it becomes the
 * next midnight, exclusive). Null when `value` is neither, or names an instant outside `DATE_RANGE`.
 */
export function parseDateBound(value: string, bound: 'start' | 'end'): DateBound | null {
  const text = value.trim();
  const day = DATE_ONLY.exec(text);
  if (day) {
    const midnight = calendarDay(Number(day[1]), Number(day[2]), Number(day[3]));
    if (midnight === null) return null;
    const at = bound === 'end' ? midnight + DAY_MS : midnight;
    return isInDateRange(at) ? { at: new Date(at), exclusive: bound === 'end' } : null;
  }
  const at = parseDateTime(text);
  return at ? { at, exclusive: false } : null;
}

/** True when the range from `start` to `end` holds at least one instant. */
export function isDateRange(start: DateBound, end: DateBound): boolean {
  return start.at.getTime() < end.at.getTime() + (end.exclusive ? 0 : 1);
}
