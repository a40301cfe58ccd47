import { countRows } from '@holdfast/contracts';
import { BadRequestError, BatchTooLargeError } from '@holdfast/platform';
import { LIMITS } from '../limits/policy.js';
import type { IngestCall } from './ingest-route.js';

/**
 * The row-count bounds of a batch, checked after the body is parsed and before schema validation:
 * 0 rows → 400 `{detail}`, more than 5,000 → JSON 413 `Batch too large (N > 5000). Page your upload.`.
 * A body without an array under `field` is left to the schema (422).
 */
export function checkRowCount(body: unknown, field: 'orders' | 'customers', call: IngestCall): void {
  const n = countRows(body, field);
  if (n === null) return;
  call.note({ received: n });
  if (n === 0) {
    call.note({ errorCodes: ['empty_batch'] });
    throw new BadRequestError(`Empty batch: send 1 to ${LIMITS.batchRows} ${field}.`);
  }
  if (n > LIMITS.batchRows) {
    call.note({ errorCodes: ['batch_too_large'] });
    throw new BatchTooLargeError(n, LIMITS.batchRows);
  }
}
