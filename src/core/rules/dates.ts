/**
 * Rules of dates and times on the wire: a donation's `closesAt` and the `startDate`/`endDate`
 * filters of the withdrawal list. Calendar dates are checked for real (2031-02-30 is refused, not
 * rolled over into March), hours, minutes and seconds for range.
 *
 * This is where date refusals belong: issue 15 adds the remaining impossible and out-of-range
 * dates here, so the service and the elements refuse them alike. Isomorphic: no DOM, no Node, no zod.
 */

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/** True when `day` (`YYYY-MM-DD`) is a day of the calendar. */
function isCalendarDay(day: string): boolean {
  const at = new Date(`${day}T00:00:00.000Z`);
  return !Number.isNaN(at.getTime()) && at.toISOString().slice(0, 10) === day;
}

/**
 * Reads an ISO 8601 date-time (`2030-01-31T18:00:00Z`; UTC when it has no offset), or null when it
 * is not one: a real calendar day, hours ≤ 23, minutes and seconds ≤ 59.
 */
export function parseDateTime(value: string): Date | null {
  const text = value.trim();
  const match = DATE_TIME.exec(text);
  if (!match || !isCalendarDay(text.slice(0, 10))) return null;
  if (Number(match[4]) > 23 || Number(match[5]) > 59 || Number(match[6] ?? 0) > 59) return null;
  const at = new Date(match[7] ? text : `${text}Z`);
  return Number.isNaN(at.getTime()) ? null : at;
}

/** One end of a date filter: the instant, and whether the filter stops just before it. */
export interface DateBound {
  at: Date;
  exclusive: boolean;
}

/**
 * Reads a `startDate`/`endDate` filter: an ISO date (`2025-01-31`, a whole UTC day) or date-time.
 * Both ends are inclusive, so an `endDate` that is a date covers that whole day (it becomes the
 * next midnight, exclusive). Null when `value` is neither.
 */
export function parseDateBound(value: string, bound: 'start' | 'end'): DateBound | null {
  const text = value.trim();
  if (DATE_ONLY.test(text)) {
    if (!isCalendarDay(text)) return null;
    const at = new Date(`${text}T00:00:00.000Z`);
    if (bound === 'end') return { at: new Date(at.getTime() + 24 * 60 * 60 * 1000), exclusive: true };
    return { at, exclusive: false };
  }
  const at = parseDateTime(text);
  return at ? { at, exclusive: false } : null;
}

/** True when the range from `start` to `end` holds at least one instant. */
export function isDateRange(start: DateBound, end: DateBound): boolean {
  return start.at.getTime() < end.at.getTime() + (end.exclusive ? 0 : 1);
}
