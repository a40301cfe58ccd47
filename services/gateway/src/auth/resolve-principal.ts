import { timingSafeEqual } from 'node:crypto';
import { hashToken, TOKEN_PREFIX } from '@holdfast/control-plane';
import { keyKind } from '@holdfast/domain';
import { BadRequestError, NotFoundError, UnauthorizedError } from '@holdfast/platform';
import type { CredentialLookup } from './credential-store.js';

/** Who is calling, once authenticated. */
export interface Principal {
  readonly accountId: string;
  /** The ingest key's id; null for the legacy tile token (a tile has no key id). */
  readonly keyId: string | null;
  /**
   * `read_key`: an rk_live_ key, which only the /v1/ read routes take; `outbound_key`: an sk_live_
   * key, which only /v1/webhooks takes.
   */
  readonly method: 'ingest_key' | 'read_key' | 'outbound_key' | 'tile_token';
  /** What the 600-per-minute limit counts: the key, or the account for the legacy tile token. */
  readonly rateBucket: string;
  /** Whether the account lets its ingest keys read (`holdfast accounts set-read-with-ingest-key`). */
  readonly readWithIngestKey: boolean;
}

/** What authentication reads from a request. */
export interface PresentedCredentials {
  readonly authorization: string | undefined;
  /** X-Service-Account-Id. */
  readonly accountHeader: string | undefined;
  readonly query: Readonly<Record<string, unknown>>;
}

/** The `detail` of every authentication failure (pinned by tests). */
export const AUTH_DETAIL = Object.freeze({
  keyInQuery: 'API keys are not accepted in the query string. Send Authorization: Bearer <INGEST_KEY>.',
  missing: 'Missing credentials. Send Authorization: Bearer <INGEST_KEY>.',
  malformed: 'Malformed Authorization header. Send Authorization: Bearer <INGEST_KEY>.',
  outboundKey: 'Outbound webhook keys (sk_live_) do not authorize ingest. Use an ingest key (tk_live_).',
  readKeyOnIngest: 'Read keys (rk_live_) do not authorize ingest or any write. Use an ingest key (tk_live_).',
  readNeedsKey: 'The read routes take a key: Authorization: Bearer <READ_KEY> (rk_live_).',
  webhooksNeedOutboundKey:
    'Webhook management takes an outbound key: Authorization: Bearer <OUTBOUND_KEY> (sk_live_, holdfast keys mint --kind outbound).',
  ingestKeyCannotRead:
    "This account's ingest keys do not read. Use a read key (rk_live_), or let ingest keys read: holdfast accounts set-read-with-ingest-key.",
  invalidKey: 'Invalid ingest key.',
  revokedKey: 'This ingest key has been revoked.',
  expiredKey: 'This ingest key has expired (rotated, grace window over).',
  accountMismatch: "X-Service-Account-Id does not match the ingest key's account.",
  accountIdMissing: 'X-Service-Account-Id (or query account_id) is required with a tile token.',
  accountIdNotUuid: 'The account id must be a UUID.',
  noCustomIntegration: 'No connected custom integration for this account.',
  invalidTileToken: 'Invalid tile token.',
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const KEY_PARAMS = new Set([
  'key',
  'api_key',
  'apikey',
  'access_token',
  'ingest_key',
  'authorization',
  'auth',
  'bearer',
]);
const KEY_PREFIX = /(?:tk_live_|tk_test_|sk_live_|rk_live_)/i;

function firstString(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) return v.find((x): x is string => typeof x === 'string');
  return undefined;
}

/** Every string in a parsed query value (strings, arrays, nested objects of the extended parser). */
function queryStrings(v: unknown, out: string[], depth = 0): string[] {
  if (typeof v === 'string') out.push(v);
  else if (depth < 8 && typeof v === 'object' && v !== null)
    for (const [k, x] of Object.entries(v)) {
      out.push(k);
      queryStrings(x, out, depth + 1);
    }
  return out;
}

/**
 * A key in the query string, in any parameter: a key-like parameter name (`key`, `api_key`,
 * `authorization`, ...), or an ingest or outbound key prefix anywhere in any name or value
 * (`?authorization=Bearer tk_live_...`, `?x=tk_live_...`, `?tk_live_...`), whatever the case.
 * Query strings end up in access logs and proxies: such a key is refused even beside a valid header.
 *
 * @example
 * keyInQuery({ authorization: 'Bearer tk_live_abc' }); // true
 */
export function keyInQuery(query: Readonly<Record<string, unknown>>): boolean {
  for (const [name, raw] of Object.entries(query)) {
    if (KEY_PARAMS.has(name.toLowerCase()) || KEY_PREFIX.test(name)) return true;
    if (queryStrings(raw, []).some((v) => KEY_PREFIX.test(v))) return true;
  }
  return false;
}

/**
 * A secret key (an ingest or outbound key prefix) anywhere in any query parameter's name or value:
 * refused on every route, the public ones too, since URLs end up in access logs, caches and Referer
 * headers. A key-like parameter name alone (`?key=`) is not enough here: the pixel key is public.
 *
 * @example
 * secretKeyInQuery({ api_key: 'tk_live_abc' }); // true
 * secretKeyInQuery({ key: 'pk_abc' }); // false
 */
export function secretKeyInQuery(query: Readonly<Record<string, unknown>>): boolean {
  for (const [name, raw] of Object.entries(query)) {
    if (KEY_PREFIX.test(name)) return true;
    if (queryStrings(raw, []).some((v) => KEY_PREFIX.test(v))) return true;
  }
  return false;
}

function parseBearer(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const m = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  if (!m) throw new UnauthorizedError(AUTH_DETAIL.malformed);
  return m[1];
}

function sameHash(token: string, expected: Buffer): boolean {
  const actual = hashToken(token);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

async function byIngestKey(
  token: string,
  accountHeader: string | undefined,
  store: CredentialLookup,
  now: Date,
  outbound: boolean,
): Promise<Principal> {
  const kind = keyKind(token);
  if (kind === 'outbound' && !outbound) throw new UnauthorizedError(AUTH_DETAIL.outboundKey);
  if (kind !== 'ingest_live' && kind !== 'ingest_test' && kind !== 'read_live' && kind !== 'outbound')
    throw new UnauthorizedError(AUTH_DETAIL.invalidKey);
  const key = await store.apiKey(hashToken(token));
  if (!key || key.kind !== kind) throw new UnauthorizedError(AUTH_DETAIL.invalidKey);
  if (key.revokedAt !== null) throw new UnauthorizedError(AUTH_DETAIL.revokedKey);
  if (key.expiresAt !== null && key.expiresAt.getTime() <= now.getTime())
    throw new UnauthorizedError(AUTH_DETAIL.expiredKey);
  if (accountHeader !== undefined && accountHeader.trim().toLowerCase() !== key.accountId.toLowerCase())
    throw new UnauthorizedError(AUTH_DETAIL.accountMismatch);
  return {
    accountId: key.accountId,
    keyId: key.id,
    method: kind === 'read_live' ? 'read_key' : kind === 'outbound' ? 'outbound_key' : 'ingest_key',
    rateBucket: `key:${key.id}`,
    readWithIngestKey: key.readWithIngestKey,
  };
}

async function byTileToken(
  token: string | undefined,
  accountId: string | undefined,
  store: CredentialLookup,
): Promise<Principal> {
  if (accountId === undefined || accountId.trim() === '')
    throw new BadRequestError(AUTH_DETAIL.accountIdMissing);
  const id = accountId.trim().toLowerCase();
  if (!UUID.test(id)) throw new BadRequestError(AUTH_DETAIL.accountIdNotUuid);
  const tile = await store.customIntegrationTile(id);
  if (!tile || !tile.connected) throw new NotFoundError(AUTH_DETAIL.noCustomIntegration);
  if (token === undefined || !sameHash(token, tile.tokenHash))
    throw new UnauthorizedError(AUTH_DETAIL.invalidTileToken);
  return {
    accountId: id,
    keyId: null,
    method: 'tile_token',
    rateBucket: `acct:${id}`,
    readWithIngestKey: false,
  };
}

/**
 * Authenticates a request to /ingest/* (spec "Authentication"), failing in the spec's order:
 * 1. a key in the query string → 401, whatever else is sent;
 * 2. `Authorization: Bearer <tk_live_|tk_test_|rk_live_ key>` → 401 when unknown, revoked, past its rotation
 *    grace, or not the account of X-Service-Account-Id (optional, must match when sent); an sk_live_
 *    key → 401;
 * 3. legacy tile token, as `Authorization: Bearer <tile_ token>` with X-Service-Account-Id, or as query
 *    `account_id` and `token` → 400 when the account id is missing or not a UUID, 404 when the
 *    account has no connected custom integration, 401 when the token is wrong;
 * 4. nothing → 401.
 *
 * `outbound`: an sk_live_ key is a credential here (/v1/webhooks only); elsewhere it is the spec's 401.
 */
export async function resolvePrincipal(
  c: PresentedCredentials,
  store: CredentialLookup,
  now: Date,
  outbound = false,
): Promise<Principal> {
  if (keyInQuery(c.query)) throw new UnauthorizedError(AUTH_DETAIL.keyInQuery);
  const bearer = parseBearer(c.authorization);
  const queryToken = firstString(c.query.token);
  const queryAccount = firstString(c.query.account_id);
  if (bearer !== undefined && !bearer.startsWith(TOKEN_PREFIX.custom_integration))
    return byIngestKey(bearer, c.accountHeader, store, now, outbound);
  if (bearer !== undefined || queryToken !== undefined || queryAccount !== undefined)
    return byTileToken(bearer ?? queryToken, c.accountHeader ?? queryAccount, store);
  throw new UnauthorizedError(AUTH_DETAIL.missing);
}
