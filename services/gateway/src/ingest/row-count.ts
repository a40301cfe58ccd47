import { countRows } from '@holdfast/contracts';
import type { Validated } from '@holdfast/domain';
import { BadRequestError, BatchTooLargeError } from '@holdfast/platform';
import { parseJsonBody, readBody } from '../http/body-reader.js';
import { parseDryRun } from '../http/query.js';
import { ValidationFailedError } from '../http/validation-failed.js';
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

/**
 * A batch request's rows, checked in the order every batch route checks them: the dry-run flag
 * (noted), body bytes (plain-text 413), JSON, row count (400 / JSON 413), schema (422).
 */
export async function readBatchRows<Row>(
  call: IngestCall,
  field: 'orders' | 'customers',
  validate: (body: unknown) => Validated<{ rows: readonly Row[] }>,
): Promise<{ dryRun: boolean; rows: readonly Row[] }> {
  const dryRun = parseDryRun(call.req.query);
  call.note({ dryRun });
  const body = parseJsonBody(await readBody(call.req, LIMITS.batchBodyBytes));
  checkRowCount(body, field, call);
  const valid = validate(body);
  if (!valid.ok) throw new ValidationFailedError(valid.detail);
  return { dryRun, rows: valid.rows };
}
