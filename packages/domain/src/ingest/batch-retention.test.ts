import { describe, expect, it } from 'vitest';
import { BATCH_RECORD_RETENTION_DAYS, batchRecordsKeptSince } from './batch-retention.js';

describe('batch record retention (spec: records are retained 90 days)', () => {
  it('given now, when asking what is kept, then records received 90 days before now or later are', () => {
    expect(BATCH_RECORD_RETENTION_DAYS).toBe(90);
    expect(batchRecordsKeptSince(new Date('2026-04-01T00:00:00Z')).toISOString()).toBe(
      '2026-01-01T00:00:00.000Z',
    );
  });

  it('given a record received just inside or just outside the window, then only the first is kept', () => {
    const now = new Date('2026-11-24T07:00:00.000Z');
    const since = batchRecordsKeptSince(now).getTime();
    const day = 86_400_000;
    expect(now.getTime() - 90 * day >= since).toBe(true);
    expect(now.getTime() - 90 * day - 1 < since).toBe(true);
  });
});
