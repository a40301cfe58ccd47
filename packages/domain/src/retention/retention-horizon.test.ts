import { describe, expect, it } from 'vitest';
import { batchRecordsKeptSince } from '../ingest/batch-retention.js';
import { keptSince } from './retention-horizon.js';

describe('keptSince', () => {
  it('given now and a number of days, then the horizon is exactly that many 24-hour days earlier', () => {
    expect(keptSince(new Date('2026-04-01T00:00:00Z'), 30).toISOString()).toBe('2026-03-02T00:00:00.000Z');
    expect(keptSince(new Date('2026-11-24T07:00:00.123Z'), 395).toISOString()).toBe(
      '2025-10-25T07:00:00.123Z',
    );
  });

  it('given the batch records rule, then it is the same cut at 90 days', () => {
    const now = new Date('2026-04-01T00:00:00Z');
    expect(batchRecordsKeptSince(now)).toEqual(keptSince(now, 90));
  });
});
