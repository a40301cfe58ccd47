import { describe, expect, it } from 'vitest';
import { dateOfDay, dayOfDate, isKnownZone, localDayOf, startOfLocalDay, zoneOffsetMs } from './local-day.js';

const at = (iso: string) => Date.parse(iso);
const day = (iso: string) =>
  dayOfDate(Number(iso.slice(0, 4)), Number(iso.slice(5, 7)), Number(iso.slice(8, 10)));

describe('localDayOf', () => {
  it('given UTC, when an instant is taken, then its day is the UTC day', () => {
    expect(localDayOf(at('2026-03-08T23:59:59Z'), 'UTC')).toBe(day('2026-03-08'));
    expect(localDayOf(new Date('2026-03-09T00:00:00Z'), 'UTC')).toBe(day('2026-03-09'));
  });

  it('given the year boundary, when New Year arrives in UTC, then New York is still on 31 December', () => {
    const instant = at('2026-01-01T04:30:00Z');
    expect(localDayOf(instant, 'UTC')).toBe(day('2026-01-01'));
    expect(localDayOf(instant, 'America/New_York')).toBe(day('2025-12-31'));
    // …and Tokyo turned the year nine hours before UTC did.
    expect(localDayOf(at('2025-12-31T15:00:00Z'), 'Asia/Tokyo')).toBe(day('2026-01-01'));
    expect(localDayOf(at('2025-12-31T14:59:59Z'), 'Asia/Tokyo')).toBe(day('2025-12-31'));
  });

  it('given the spring-forward change in New York (2026-03-08 02:00 → 03:00), then days turn at local midnight on both sides', () => {
    // Before the change: EST, UTC−5; after it: EDT, UTC−4.
    expect(localDayOf(at('2026-03-08T04:59:59Z'), 'America/New_York')).toBe(day('2026-03-07'));
    expect(localDayOf(at('2026-03-08T05:00:00Z'), 'America/New_York')).toBe(day('2026-03-08'));
    expect(localDayOf(at('2026-03-09T03:59:59Z'), 'America/New_York')).toBe(day('2026-03-08'));
    expect(localDayOf(at('2026-03-09T04:00:00Z'), 'America/New_York')).toBe(day('2026-03-09'));
    // The UTC day 2026-03-08 holds the change itself (07:00 UTC): the exact path.
    expect(localDayOf(at('2026-03-08T06:59:59Z'), 'America/New_York')).toBe(day('2026-03-08'));
    expect(localDayOf(at('2026-03-08T07:00:00Z'), 'America/New_York')).toBe(day('2026-03-08'));
  });

  it('given the fall-back change in Berlin (2026-10-25 03:00 → 02:00), then the 25-hour day is one day', () => {
    expect(localDayOf(at('2026-10-24T21:59:59Z'), 'Europe/Berlin')).toBe(day('2026-10-24'));
    expect(localDayOf(at('2026-10-24T22:00:00Z'), 'Europe/Berlin')).toBe(day('2026-10-25'));
    expect(localDayOf(at('2026-10-25T22:59:59Z'), 'Europe/Berlin')).toBe(day('2026-10-25'));
    expect(localDayOf(at('2026-10-25T23:00:00Z'), 'Europe/Berlin')).toBe(day('2026-10-26'));
  });

  it('given every minute of a week around a DST change, then it agrees with Intl read directly', () => {
    const fmt = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Chicago' });
    for (let t = at('2026-11-01T00:00:00Z') - 3 * 86_400_000; t < at('2026-11-05T00:00:00Z'); t += 60_000) {
      expect(localDayOf(t, 'America/Chicago')).toBe(day(fmt.format(t)));
    }
  });

  it('given an unknown zone or an invalid instant, then it throws a RangeError', () => {
    expect(() => localDayOf(0, 'Mars/Olympus')).toThrow(RangeError);
    expect(() => localDayOf(Number.NaN, 'UTC')).toThrow(RangeError);
  });
});

describe('zoneOffsetMs', () => {
  it('given Berlin in winter and in summer, then the offset is one and two hours', () => {
    expect(zoneOffsetMs(at('2026-01-15T12:00:00Z'), 'Europe/Berlin')).toBe(3_600_000);
    expect(zoneOffsetMs(at('2026-07-15T12:00:00Z'), 'Europe/Berlin')).toBe(7_200_000);
    expect(zoneOffsetMs(at('2026-07-15T12:00:00Z'), 'Asia/Kathmandu')).toBe(20_700_000);
  });
});

describe('startOfLocalDay', () => {
  it('given a day in New York, then it is local midnight on either side of the year', () => {
    expect(startOfLocalDay(day('2026-01-01'), 'America/New_York')).toBe(at('2026-01-01T05:00:00Z'));
    expect(startOfLocalDay(day('2025-12-31'), 'America/New_York')).toBe(at('2025-12-31T05:00:00Z'));
    expect(startOfLocalDay(day('2026-03-09'), 'America/New_York')).toBe(at('2026-03-09T04:00:00Z'));
  });

  it('given a DST change that skips midnight (Havana, 2026-03-08 00:00 → 01:00), then the first minute that exists', () => {
    const start = startOfLocalDay(day('2026-03-08'), 'America/Havana');
    expect(localDayOf(start, 'America/Havana')).toBe(day('2026-03-08'));
    expect(localDayOf(start - 1, 'America/Havana')).toBe(day('2026-03-07'));
  });
});

describe('isKnownZone and day numbers', () => {
  it('given names, then Intl decides', () => {
    expect(isKnownZone('America/Indiana/Tell_City')).toBe(true);
    expect(isKnownZone('UTC')).toBe(true);
    expect(isKnownZone('CST6CDT ')).toBe(false);
    expect(isKnownZone('')).toBe(false);
  });

  it('given a date, then its day number goes there and back', () => {
    expect(dayOfDate(2026, 1, 1)).toBe(20_454);
    expect(dayOfDate(2026, 13, 1)).toBe(dayOfDate(2027, 1, 1));
    expect(dateOfDay(20_453)).toEqual({ year: 2025, month: 12, day: 31 });
  });
});
