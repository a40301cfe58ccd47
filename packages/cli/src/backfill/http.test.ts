import { describe, expect, it } from 'vitest';
import { backoffMs, retryAfterMs } from './http.js';
import { progressLine } from './progress.js';
import { endpointUrl } from './run.js';

describe('retryAfterMs', () => {
  it('reads seconds and HTTP dates, defaulting to a second', () => {
    expect(retryAfterMs('1')).toBe(1000);
    expect(retryAfterMs('0')).toBe(0);
    expect(retryAfterMs(null)).toBe(1000);
    expect(retryAfterMs('soon')).toBe(1000);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs('Thu, 01 Jan 2026 00:00:05 GMT', now)).toBe(5000);
  });
});

describe('backoffMs', () => {
  it('doubles per attempt, jittered between half and all, capped at 30 s', () => {
    expect([1, 2, 3].map((a) => backoffMs(a, 500, () => 0))).toEqual([250, 500, 1000]);
    expect([1, 2, 3].map((a) => backoffMs(a, 500, () => 1))).toEqual([500, 1000, 2000]);
    expect(backoffMs(20, 500, () => 1)).toBe(30_000);
  });
});

describe('endpointUrl', () => {
  it('appends /ingest/<kind> to a base address and keeps a full endpoint', () => {
    expect(endpointUrl('http://127.0.0.1:8080', 'orders', false)).toBe('http://127.0.0.1:8080/ingest/orders');
    expect(endpointUrl('https://h.example/api/', 'customers', true)).toBe(
      'https://h.example/api/ingest/customers?dry_run=true',
    );
    expect(endpointUrl('http://h/ingest/orders', 'orders', false)).toBe('http://h/ingest/orders');
  });
});

describe('progressLine', () => {
  it('shows rows, rate, share of the file done, ETA, accepted and dropped', () => {
    expect(
      progressLine({
        rows: 5000,
        rowsRead: 10000,
        accepted: 4990,
        dropped: 10,
        bytesRead: 100,
        size: 100,
        elapsedMs: 2000,
      }),
    ).toBe('5,000 rows  2,500 rows/s  50.0%  ETA 0:02  accepted 4,990  dropped 10');
    expect(
      progressLine({ rows: 3, rowsRead: 3, accepted: 3, dropped: 0, bytesRead: 9, size: null, elapsedMs: 0 }),
    ).toBe('3 rows  0 rows/s  accepted 3  dropped 0');
  });
});
