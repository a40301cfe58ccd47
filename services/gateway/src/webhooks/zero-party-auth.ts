import { timingSafeEqual } from 'node:crypto';
import { findTileToken, hashToken } from '@holdfast/control-plane';
import type { Database } from '@holdfast/postgres';
import type { Kysely } from 'kysely';
import { BadRequestError, NotFoundError, UnauthorizedError } from '@holdfast/platform';
import { AUTH_DETAIL, keyInQuery } from '../auth/resolve-principal.js';

/** The `detail` of every zero-party authentication failure (pinned by tests). */
export const ZERO_PARTY_AUTH_DETAIL = Object.freeze({
  headerNotAccepted:
    'The zero-party webhook takes its tile token in the query string only (?account_id=<uuid>&token=<token>); an Authorization header is not accepted.',
  missing: 'Missing credentials. Send the zero-party tile token as query account_id and token.',
  accountIdMissing: 'Query account_id is required with the zero-party tile token.',
  accountIdNotUuid: 'The account id must be a UUID.',
  notConnected: 'No connected zero-party tile for this account.',
  invalidToken: 'Invalid zero-party tile token.',
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function lastString(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) return v.findLast((x): x is string => typeof x === 'string');
  return undefined;
}

/**
 * Authenticates POST /webhooks/zero-party (spec "Authentication": the zero-party tile token, query
 * string only), failing in the order of the legacy tile path:
 * 0. an ingest or outbound key anywhere in the query string → 401 (as on /ingest/*);
 * 1. no query credentials → 401 (with its own detail when an Authorization header was sent instead);
 * 2. account_id missing or not a UUID → 400;
 * 3. no connected zero-party tile for the account → 404;
 * 4. token not the tile's → 401.
 * Looked up without a cache on purpose: the route is low-volume, so a disconnect or a re-issued token
 * takes effect at once. Returns the account id.
 */
export async function resolveZeroPartyAccount(
  db: Kysely<Database>,
  c: { readonly authorization: string | undefined; readonly query: Readonly<Record<string, unknown>> },
): Promise<string> {
  if (keyInQuery(c.query)) throw new UnauthorizedError(AUTH_DETAIL.keyInQuery);
  const token = lastString(c.query.token);
  const accountId = lastString(c.query.account_id)?.trim();
  if (token === undefined && accountId === undefined)
    throw new UnauthorizedError(
      c.authorization !== undefined
        ? ZERO_PARTY_AUTH_DETAIL.headerNotAccepted
        : ZERO_PARTY_AUTH_DETAIL.missing,
    );
  if (accountId === undefined || accountId === '')
    throw new BadRequestError(ZERO_PARTY_AUTH_DETAIL.accountIdMissing);
  if (!UUID.test(accountId)) throw new BadRequestError(ZERO_PARTY_AUTH_DETAIL.accountIdNotUuid);
  const id = accountId.toLowerCase();
  const tile = await findTileToken(db, id, 'zero_party');
  if (!tile || tile.disconnected_at !== null) throw new NotFoundError(ZERO_PARTY_AUTH_DETAIL.notConnected);
  const presented = hashToken(token ?? '');
  if (presented.length !== tile.token_hash.length || !timingSafeEqual(presented, tile.token_hash))
    throw new UnauthorizedError(ZERO_PARTY_AUTH_DETAIL.invalidToken);
  return id;
}
