/** Unit in which model durations (recency, T, horizons, gaps) are expressed. */
export type TimeUnit = 'weeks' | 'days';

/** A point in time accepted by the analytics functions: a Date, an ISO-8601 string or epoch milliseconds. */
export type Instant = Date | string | number;

const MS_PER_DAY = 86_400_000;

/** Number of days in one model time unit. */
export function daysPerUnit(unit: TimeUnit): number {
  return unit === 'weeks' ? 7 : 1;
}

/**
 * Number of model time units in a year (365.25 days), used to turn an annual discount rate into a
 * per-period one and to size the default CLV step (one twelfth of a year).
 */
export function unitsPerYear(unit: TimeUnit): number {
  return 365.25 / daysPerUnit(unit);
}

/** Epoch milliseconds of an instant; throws a RangeError on an unparseable value. */
export function toEpochMs(value: Instant): number {
  const ms = value instanceof Date ? value.getTime() : typeof value === 'number' ? value : Date.parse(value);
  if (!Number.isFinite(ms)) throw new RangeError(`Invalid date: ${String(value)}`);
  return ms;
}

/**
 * UTC calendar day of an instant, as whole days since 1970-01-01. Purchases are bucketed to this day:
 * same-day purchases form one transaction, and durations are whole days, which keeps the number of
 * distinct (x, t_x, T) patterns small.
 */
export function toUtcDay(value: Instant): number {
  return Math.floor(toEpochMs(value) / MS_PER_DAY);
}

/** Midnight UTC of a day number produced by {@link toUtcDay}. */
export function utcDayToDate(day: number): Date {
  return new Date(day * MS_PER_DAY);
}

/** `date` plus a (possibly fractional) duration in model time units. */
export function addUnits(date: Date, amount: number, unit: TimeUnit): Date {
  return new Date(date.getTime() + amount * daysPerUnit(unit) * MS_PER_DAY);
}
