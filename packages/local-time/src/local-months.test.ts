import { describe, expect, it } from 'vitest';
import { localMonths } from './local-months.js';

describe('localMonths', () => {
  it('given New Year’s early hours in UTC, when the store is in New York, then the current month is still December', () => {
    const [current, previous] = localMonths(new Date('2026-01-01T03:00:00Z'), 1, 'America/New_York');
    expect(current).toEqual({
      start: new Date('2025-12-01T05:00:00Z'),
      end: new Date('2026-01-01T05:00:00Z'),
    });
    expect(previous).toEqual({
      start: new Date('2025-11-01T04:00:00Z'),
      end: new Date('2025-12-01T05:00:00Z'),
    });
  });

  it('given March in Berlin, then the month is an hour short of 31 days (the clocks go forward)', () => {
    const [march] = localMonths(new Date('2026-03-15T12:00:00Z'), 0, 'Europe/Berlin');
    expect(march!.start).toEqual(new Date('2026-02-28T23:00:00Z'));
    expect(march!.end).toEqual(new Date('2026-03-31T22:00:00Z'));
    expect(march!.end.getTime() - march!.start.getTime()).toBe((31 * 24 - 1) * 3_600_000);
  });

  it('given UTC, then the months are the UTC calendar months', () => {
    expect(localMonths(new Date('2026-01-01T03:00:00Z'), 0, 'UTC')).toEqual([
      { start: new Date('2026-01-01T00:00:00Z'), end: new Date('2026-02-01T00:00:00Z') },
    ]);
  });
});
