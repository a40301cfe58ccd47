import { dateOfDay, dayOfDate, localDayOf, startOfLocalDay } from './local-day.js';

/** A span of time [start, end), as instants. */
export interface Period {
  readonly start: Date;
  readonly end: Date;
}

/**
 * The calendar months in a zone: the month `now` falls in there and the `previous` months before it,
 * newest first, each from local midnight of its first day to local midnight of the next month's first
 * day (so a month in a DST zone is an hour shorter or longer than its days × 24 h).
 *
 * @example
 * localMonths(new Date('2026-01-01T03:00:00Z'), 0, 'America/New_York');
 * // [{ start: 2025-12-01T05:00:00Z, end: 2026-01-01T05:00:00Z }]: still December in New York
 */
export function localMonths(now: Date, previous: number, zone: string): Period[] {
  const { year, month } = dateOfDay(localDayOf(now, zone));
  const periods: Period[] = [];
  for (let k = 0; k <= previous; k++) {
    periods.push({
      start: new Date(startOfLocalDay(dayOfDate(year, month - k, 1), zone)),
      end: new Date(startOfLocalDay(dayOfDate(year, month - k + 1, 1), zone)),
    });
  }
  return periods;
}
