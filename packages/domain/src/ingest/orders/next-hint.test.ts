import { describe, expect, it } from 'vitest';
import type { OrderCounters } from './classify-orders.js';
import { naiveTimestampWarning, nextHint } from './next-hint.js';

const counters = (o: Partial<OrderCounters> = {}): OrderCounters => ({
  received: 10,
  distinct_order_ids: 10,
  deduped_in_batch: 0,
  accepted: 10,
  dropped_invalid: 0,
  dropped_suppressed: 0,
  naive_timestamps: 0,
  ...o,
});

describe('nextHint', () => {
  it.each([
    [counters(), {}, 'Analytics recompute nightly at 02:00 UTC; POST /ingest/sync after large loads.'],
    [
      counters({ accepted: 9, dropped_invalid: 1 }),
      {},
      '1 row dropped (unparseable order_date or order_amount, or no customer_id, email or phone): re-run with ?dry_run=true to see per-row errors. Analytics recompute nightly at 02:00 UTC; POST /ingest/sync after large loads.',
    ],
    [
      counters({ accepted: 0, dropped_invalid: 10 }),
      {},
      '10 rows dropped (unparseable order_date or order_amount, or no customer_id, email or phone): re-run with ?dry_run=true to see per-row errors.',
    ],
    [
      counters({ accepted: 8, deduped_in_batch: 2 }),
      {},
      '2 rows repeated an order_id of this batch: the last row of each order_id wins. Analytics recompute nightly at 02:00 UTC; POST /ingest/sync after large loads.',
    ],
    [
      counters({ naive_timestamps: 1 }),
      {},
      '1 order_date had no UTC offset and was read as UTC; send timestamps with an offset (for example 2024-01-02T10:00:00-05:00). Analytics recompute nightly at 02:00 UTC; POST /ingest/sync after large loads.',
    ],
    [
      counters({ accepted: 9, dropped_invalid: 1 }),
      { dryRun: true },
      '1 row would be dropped (unparseable order_date or order_amount, or no customer_id, email or phone): fix the rows listed in errors. Nothing was written: POST again without dry_run to write.',
    ],
    [counters({ accepted: 0, dropped_invalid: 0, received: 0 }), { dryRun: true }, 'Nothing was written.'],
  ])('given counters %j and options %j, when hinted, then next is exact', (c, options, hint) => {
    expect(nextHint(c, options)).toBe(hint);
  });

  it.each([
    [
      1,
      '1 order_date had no UTC offset and was read as UTC; send timestamps with an offset (for example 2024-01-02T10:00:00-05:00).',
    ],
    [
      3,
      '3 order_date values had no UTC offset and were read as UTC; send timestamps with an offset (for example 2024-01-02T10:00:00-05:00).',
    ],
  ])('given %i naive timestamps, when warned, then the warning is exact', (n, text) => {
    expect(naiveTimestampWarning(n)).toBe(text);
  });
});
