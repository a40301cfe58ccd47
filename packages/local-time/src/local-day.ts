const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;

/** One formatter per zone: building an Intl.DateTimeFormat costs tens of microseconds, using one a few. */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (f === undefined) {
    // Throws a RangeError for a name Intl does not know.
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, f);
  }
  return f;
}

/**
 * True when Node's Intl knows the zone (an IANA name such as America/Chicago, or UTC).
 *
 * @example
 * isKnownZone('Europe/Berlin'); // true
 * isKnownZone('CST');           // false
 */
export function isKnownZone(zone: string): boolean {
  if (zone === '' || zone.length > 64) return false;
  try {
    formatter(zone);
    return true;
  } catch {
    return false;
  }
}

/**
 * The zone's UTC offset at an instant, in milliseconds (local wall clock − UTC): +3,600,000 for
 * Europe/Berlin in winter, −18,000,000 for America/New_York in winter. From Intl (the tz database Node
 * ships), to the second.
 */
export function zoneOffsetMs(instantMs: number, zone: string): number {
  const whole = Math.floor(instantMs / 1000) * 1000;
  let year = 0;
  let month = 0;
  let day = 0;
  let hour = 0;
  let minute = 0;
  let second = 0;
  for (const part of formatter(zone).formatToParts(whole)) {
    const v = Number(part.value);
    switch (part.type) {
      case 'year':
        year = v;
        break;
      case 'month':
        month = v;
        break;
      case 'day':
        day = v;
        break;
      case 'hour':
        hour = v;
        break;
      case 'minute':
        minute = v;
        break;
      case 'second':
        second = v;
        break;
      default:
    }
  }
  return Date.UTC(year, month - 1, day, hour, minute, second) - whole;
}

/**
 * Per zone, per UTC day: the offset when it is the same at both ends of that UTC day, else NaN (a
 * transition falls inside it). tz transitions are hours or months apart, never two within one UTC day
 * that cancel out, so a day whose two ends agree has one offset throughout. Bounded: a zone's map is
 * emptied when it reaches MAX_DAYS days (about 137 years of distinct days).
 */
const dayOffsets = new Map<string, Map<number, number>>();
const MAX_DAYS = 50_000;

function offsetOfUtcDay(utcDay: number, zone: string): number {
  let days = dayOffsets.get(zone);
  if (days === undefined) dayOffsets.set(zone, (days = new Map<number, number>()));
  let offset = days.get(utcDay);
  if (offset === undefined) {
    const start = zoneOffsetMs(utcDay * DAY_MS, zone);
    const end = zoneOffsetMs((utcDay + 1) * DAY_MS - 1000, zone);
    offset = start === end ? start : NaN;
    if (days.size >= MAX_DAYS) days.clear();
    days.set(utcDay, offset);
  }
  return offset;
}

/**
 * The local calendar day of an instant in a zone, as whole days since 1970-01-01 (the day number of
 * that local date, so UTC gives the UTC day). Purchases are bucketed to this day: two orders on one
 * local date are one transaction, and recency, T and silences are counted in these days.
 *
 * Exact at every instant, DST changes included: the offset comes from Intl, looked up once per zone
 * and UTC day and asked of Intl again only on the rare day that holds a transition.
 *
 * @example
 * localDayOf(Date.parse('2026-01-01T04:30:00Z'), 'America/New_York'); // day of 2025-12-31 (20453)
 * localDayOf(Date.parse('2026-01-01T04:30:00Z'), 'UTC');              // day of 2026-01-01 (20454)
 */
export function localDayOf(instant: number | Date, zone: string): number {
  const ms = typeof instant === 'number' ? instant : instant.getTime();
  if (!Number.isFinite(ms)) throw new RangeError(`Invalid instant: ${String(instant)}`);
  const utcDay = Math.floor(ms / DAY_MS);
  let offset = offsetOfUtcDay(utcDay, zone);
  if (Number.isNaN(offset)) offset = zoneOffsetMs(ms, zone);
  return Math.floor((ms + offset) / DAY_MS);
}

/**
 * The first instant (epoch ms) of a local calendar day in a zone: local midnight, or, where a DST
 * change skips midnight (America/Havana, Asia/Beirut, …), the first minute that exists on that date.
 * Where midnight happens twice (a fall-back at midnight), the first.
 *
 * @example
 * startOfLocalDay(20454, 'America/New_York'); // Date.parse('2026-01-01T05:00:00Z')
 */
export function startOfLocalDay(day: number, zone: string): number {
  if (!Number.isInteger(day)) throw new RangeError(`Invalid day: ${day}`);
  const wall = day * DAY_MS;
  // The instant whose wall clock reads local midnight, when one does: two rounds settle the offset.
  let t = wall - zoneOffsetMs(wall, zone);
  t = wall - zoneOffsetMs(t, zone);
  if (localDayOf(t, zone) === day && localDayOf(t - MINUTE_MS, zone) < day) return t;
  // A transition at midnight: walk the minutes around it (offsets change by at most a few hours).
  for (let m = t - 3 * 60 * MINUTE_MS; m <= t + 3 * 60 * MINUTE_MS; m += MINUTE_MS) {
    if (localDayOf(m, zone) === day) return m;
  }
  throw new RangeError(`Day ${day} does not exist in ${zone}`);
}

/** The day number (days since 1970-01-01) of a calendar date; month 1–12, overflowing into years. */
export function dayOfDate(year: number, month: number, day: number): number {
  return Date.UTC(year, month - 1, day) / DAY_MS;
}

/** The calendar date (year, month 1–12, day) of a day number. */
export function dateOfDay(day: number): { year: number; month: number; day: number } {
  const d = new Date(day * DAY_MS);
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}
