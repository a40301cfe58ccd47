import type { OrderCounters } from './classify-orders.js';

const rows = (n: number) => `${n} row${n === 1 ? '' : 's'}`;

/**
 * The `next` string of an orders response: what to do about this batch, most urgent first.
 * On a real call it ends with when analytics catch up; in a dry run, with how to write.
 *
 * @example
 * nextHint({ received: 10, distinct_order_ids: 10, deduped_in_batch: 0, accepted: 9, dropped_invalid: 1, dropped_suppressed: 0, naive_timestamps: 0 });
 * // '1 row dropped (...): re-run with ?dry_run=true to see per-row errors. Analytics recompute nightly at 02:00 UTC; POST /ingest/sync after large loads.'
 */
export function nextHint(counters: OrderCounters, options: { dryRun?: boolean } = {}): string {
  const dryRun = options.dryRun === true;
  const parts: string[] = [];
  if (counters.dropped_invalid > 0) {
    const what = `${rows(counters.dropped_invalid)} ${dryRun ? 'would be dropped' : 'dropped'} (unparseable order_date or order_amount, or no customer_id, email or phone)`;
    parts.push(
      `${what}: ${dryRun ? 'fix the rows listed in errors.' : 're-run with ?dry_run=true to see per-row errors.'}`,
    );
  }
  if (counters.dropped_suppressed > 0)
    parts.push(
      `${rows(counters.dropped_suppressed)} ${dryRun ? 'would be dropped' : 'dropped'}: they name an erased and suppressed person (suppressed_identity).`,
    );
  if (counters.deduped_in_batch > 0)
    parts.push(
      `${rows(counters.deduped_in_batch)} repeated an order_id of this batch: the last row of each order_id wins.`,
    );
  if (counters.naive_timestamps > 0) parts.push(naiveTimestampWarning(counters.naive_timestamps));
  if (dryRun) {
    parts.push(
      counters.accepted > 0
        ? 'Nothing was written: POST again without dry_run to write.'
        : 'Nothing was written.',
    );
  } else if (counters.accepted > 0) {
    parts.push('Analytics recompute nightly at 02:00 UTC; POST /ingest/sync after large loads.');
  }
  return parts.join(' ');
}

/**
 * The response's `warning` string, sent only when some order_date had no UTC offset.
 *
 * @example
 * naiveTimestampWarning(1); // '1 order_date had no UTC offset and was read as UTC; send timestamps with an offset (...).'
 */
export function naiveTimestampWarning(naiveTimestamps: number): string {
  const subject = naiveTimestamps === 1 ? '1 order_date had' : `${naiveTimestamps} order_date values had`;
  const verb = naiveTimestamps === 1 ? 'was' : 'were';
  return `${subject} no UTC offset and ${verb} read as UTC; send timestamps with an offset (for example 2024-01-02T10:00:00-05:00).`;
}
