import { httpValidators } from '@holdfast/contracts/http';
import type { CustomerRowInput } from '@holdfast/contracts';
import { validateRowsRequest } from '../shared/validate-rows.js';
import type { Validated } from '../shared/validation-issue.js';

/**
 * Validates the body of POST /ingest/customers against `customersRequestSchema`.
 * Every field is optional; a field of the wrong type is a 422 at its loc, and a subscription_status
 * outside active/paused/cancelled (or null) is a 422 `enum` entry:
 * `{loc: ['body', 'customers', i, 'subscription_status'], type: 'enum', msg: "Input should be 'active', 'paused' or 'cancelled'"}`.
 * Unknown fields are allowed. As for orders, the 1..5000 row bounds are left to the gateway
 * (`countRows(body, 'customers')` first).
 *
 * @example
 * validateCustomersRequest({ customers: [{ email: 'a@b.co', subscription_status: 'trial' }] }).ok; // false
 */
export function validateCustomersRequest(body: unknown): Validated<{ rows: readonly CustomerRowInput[] }> {
  return validateRowsRequest<CustomerRowInput>(httpValidators.customersRequest, 'customers', body);
}
