import { describe, expect, it } from 'vitest';
import { cohortClock } from '../../src/scoring/cohort-activity.js';

describe('cohortClock', () => {
  it('given a store in New York, when the as-of is 03:00 UTC on 1 December, then orders count until local midnight after 30 November', () => {
    const clock = cohortClock(new Date('2026-12-01T03:00:00Z'), 'America/New_York');
    expect(clock.zone).toBe('America/New_York');
    // 22:00 on 30 November in New York (EST, UTC−5): the day ends at 05:00 UTC on 1 December.
    expect(clock.countedBefore.toISOString()).toBe('2026-12-01T05:00:00.000Z');
  });

  it('given a store in Tokyo, when the as-of is 20:00 UTC on 30 November, then the as-of day is already 1 December there', () => {
    const clock = cohortClock(new Date('2026-11-30T20:00:00Z'), 'Asia/Tokyo');
    // 05:00 on 1 December in Tokyo (UTC+9): counted until local midnight after it, 15:00 UTC on 1 December.
    expect(clock.countedBefore.toISOString()).toBe('2026-12-01T15:00:00.000Z');
  });

  it('given no zone or one Intl does not know, then UTC days as before', () => {
    for (const zone of [null, undefined, '', 'Mars/Olympus_Mons', 'EST5EDT']) {
      const clock = cohortClock(new Date('2026-11-22T02:00:00Z'), zone);
      expect(clock.zone).toBe('UTC');
      expect(clock.countedBefore.toISOString()).toBe('2026-11-23T00:00:00.000Z');
    }
  });
});
