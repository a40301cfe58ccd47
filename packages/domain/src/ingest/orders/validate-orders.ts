import { httpValidators } from '@holdfast/contracts/http';
import type { OrderRowInput } from '@holdfast/contracts';
import { validateRowsRequest } from '../shared/validate-rows.js';
import type { Validated } from '../shared/validation-issue.js';

/**
 * Validates the body of POST /ingest/orders against `ordersRequestSchema` (the same call serves the
 * real call and the dry run: a 422 fails both).
 *
 * Decisions (spec "Order row", "POST /ingest/orders"):
 * - a missing or mistyped required field (order_id, customer_id, order_date, order_amount,
 *   product_name) is a 422 for the whole request; `null` is mistyped for these five;
 * - empty order_id or product_name → 422 `string_too_short`;
 * - a blank customer_id (`''`, `'  '`) is NOT a 422: it is a blank identity, handled by `classifyOrders`;
 * - order_amount must be a JSON number: a string → 422 (`float_parsing`, or `float_type` for a numeric
 *   string such as `"12.50"`); a negative or non-finite number is not a 422 but drops the row;
 * - order_date is any string here: an unparseable one drops the row;
 * - an optional field of the wrong type (`email: 5`) → 422 at its loc; unknown fields are allowed;
 * - the row-count bounds are NOT reported here: call `countRows(body, 'orders')` first (empty → 400,
 *   more than 5,000 → JSON 413). An empty `orders` array passes with `rows: []`.
 *
 * The 422 list holds at most `MAX_VALIDATION_ISSUES` entries.
 *
 * @example
 * const v = validateOrdersRequest({ orders: [{ order_id: 'A1' }] });
 * // v.ok === false; v.detail[0] = { type: 'missing', loc: ['body', 'orders', 0, 'customer_id'], msg: 'Field required' }
 */
export function validateOrdersRequest(body: unknown): Validated<{ rows: readonly OrderRowInput[] }> {
  return validateRowsRequest<OrderRowInput>(httpValidators.ordersRequest, 'orders', body);
}
