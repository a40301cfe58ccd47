import { ValidationFailedError } from '../http/validation-failed.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The opaque cursor of a /v1/ list: the last customer id of the page (keyset pagination on
 * customer_id, which never changes), as base64url of `v1:<uuid>`. A page after it starts strictly
 * after that id, so writes during the walk never repeat nor skip a customer that existed when the
 * walk began (docs/read-api.md "Pagination").
 *
 * @example
 * encodeCursor('00000000-0000-4000-8000-000000000001'); // 'djE6MDAwMDAw...'
 */
export function encodeCursor(lastCustomerId: string): string {
  return Buffer.from(`v1:${lastCustomerId}`, 'utf8').toString('base64url');
}

/**
 * The customer id a cursor continues after; `null` without a cursor; a 422 at `['query', 'cursor']`
 * for anything this service did not issue.
 *
 * @example
 * decodeCursor(encodeCursor(id)); // id
 */
export function decodeCursor(raw: string | undefined): string | null {
  if (raw === undefined || raw === '') return null;
  const text = /^[A-Za-z0-9_-]{1,200}$/.test(raw) ? Buffer.from(raw, 'base64url').toString('utf8') : '';
  const id = text.startsWith('v1:') ? text.slice(3) : '';
  if (!UUID.test(id))
    throw new ValidationFailedError([
      {
        type: 'value_error',
        loc: ['query', 'cursor'],
        msg: 'Value error, not a cursor this API issued',
        input: raw,
      },
    ]);
  return id;
}
