import type { SchemaError } from '@holdfast/contracts';
import type { BodyValidator } from '@holdfast/contracts/http';
import { toValidationIssues } from './validation-issue.js';
import type { Validated } from './validation-issue.js';

/**
 * Validates a rows request body (`{ <key>: [rows] }`) with its compiled schema: the 422 entries of
 * every failure, or the rows. The 1..5000 row bounds are NOT reported here: they are the gateway's
 * (400 / JSON 413), checked with `countRows(body, key)` first.
 *
 * @example
 * validateRowsRequest<OrderRowInput>(httpValidators.ordersRequest, 'orders', body);
 */
export function validateRowsRequest<Row>(
  validate: BodyValidator,
  key: string,
  body: unknown,
): Validated<{ rows: readonly Row[] }> {
  if (!validate(body)) {
    const isRowCountBound = (e: SchemaError) =>
      e.instancePath === `/${key}` && (e.keyword === 'minItems' || e.keyword === 'maxItems');
    const detail = toValidationIssues(validate.errors, body, { skip: isRowCountBound });
    if (detail.length > 0) return { ok: false, detail };
  }
  return { ok: true, rows: (body as Record<string, Row[]>)[key]! };
}
