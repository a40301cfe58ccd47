import { httpValidators } from '@holdfast/contracts/http';
import type { CustomerRowInput, SchemaError } from '@holdfast/contracts';
import { toValidationIssues } from '../shared/validation-issue.js';
import type { Validated } from '../shared/validation-issue.js';

const isRowCountBound = (e: SchemaError) =>
  e.instancePath === '/customers' && (e.keyword === 'minItems' || e.keyword === 'maxItems');

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
  const validate = httpValidators.customersRequest;
  if (!validate(body)) {
    const detail = toValidationIssues(validate.errors, body, { skip: isRowCountBound });
    if (detail.length > 0) return { ok: false, detail };
  }
  return { ok: true, rows: (body as { customers: CustomerRowInput[] }).customers };
}
