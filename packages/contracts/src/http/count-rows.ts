/**
 * Number of rows in a batch body, or `null` when the body has no array under `field` (then schema
 * validation answers with a 422).
 *
 * The gateway calls this BEFORE schema validation: 0 rows → 400 "empty batch", more than 5,000 →
 * JSON 413 "Batch too large (N > 5000). Page your upload.". The domain validators never turn these
 * two bounds into a 422.
 *
 * @example
 * countRows({ orders: [] }, 'orders'); // 0 → 400
 */
export function countRows(body: unknown, field: 'orders' | 'customers'): number | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
  const rows = (body as Record<string, unknown>)[field];
  return Array.isArray(rows) ? rows.length : null;
}
