import type { Kysely, Selectable } from 'kysely';
import { ControlPlaneError } from './control-plane.js';
import type {
  AccountsTable,
  ApiKeysTable,
  Database,
  PixelKeysTable,
  TileName,
  TilesTable,
} from '@holdfast/postgres';

/** How a key stands now: `expiring` is a rotated key still inside its grace window. */
export type ApiKeyStatus = 'live' | 'revoked' | 'expiring' | 'expired';

/** An ingest or outbound key as the console lists it (never its hash). */
export type ApiKeyListing = Readonly<
  Omit<Selectable<ApiKeysTable>, 'key_hash' | 'created_at'> & { created_at: Date; status: ApiKeyStatus }
>;

/** A pixel key with its origin allow-list. */
export interface PixelKeyListing extends Omit<Selectable<PixelKeysTable>, 'key_hash'> {
  readonly origins: string[];
}

/**
 * The status of a key at `now`: revocation wins, then the rotation deadline.
 *
 * @example
 * apiKeyStatus({ revoked_at: null, expires_at: new Date(Date.now() + 1000) }, new Date()); // 'expiring'
 */
export function apiKeyStatus(
  k: { readonly revoked_at: Date | null; readonly expires_at: Date | null },
  now: Date,
): ApiKeyStatus {
  if (k.revoked_at) return 'revoked';
  if (!k.expires_at) return 'live';
  return k.expires_at.getTime() > now.getTime() ? 'expiring' : 'expired';
}

/** Accounts, oldest first (the first `limit`). */
export async function listAccounts(db: Kysely<Database>, limit = 1000): Promise<Selectable<AccountsTable>[]> {
  return db
    .selectFrom('control.accounts')
    .selectAll()
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .execute();
}

// `Generated<Timestamp>` selects as the column type itself; at run time pg hands back a Date.
function listing(r: Selectable<ApiKeysTable>, now: Date): ApiKeyListing {
  const { key_hash: _, ...rest } = r;
  return { ...rest, created_at: r.created_at as unknown as Date, status: apiKeyStatus(r, now) };
}

/** Every ingest and outbound key of an account with its status at `now`, oldest first. */
export async function listApiKeys(
  db: Kysely<Database>,
  accountId: string,
  now = new Date(),
): Promise<ApiKeyListing[]> {
  const rows = await db
    .selectFrom('control.api_keys')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((r) => listing(r, now));
}

/** One key (never its hash), or `not_found`. */
export async function describeApiKey(
  db: Kysely<Database>,
  keyId: string,
  now = new Date(),
): Promise<ApiKeyListing> {
  const r = await db.selectFrom('control.api_keys').selectAll().where('id', '=', keyId).executeTakeFirst();
  if (!r) throw new ControlPlaneError('not_found', `no key ${keyId}`);
  return listing(r, now);
}

/** The tiles of an account (connected or once connected), without token hashes. */
export async function listTiles(db: Kysely<Database>, accountId: string) {
  return db
    .selectFrom('control.tiles')
    .select(['tile', 'token_prefix', 'connected_at', 'disconnected_at', 'first_call_at'])
    .where('account_id', '=', accountId)
    .orderBy('tile')
    .execute();
}

async function withOrigins(
  db: Kysely<Database>,
  keys: Omit<Selectable<PixelKeysTable>, 'key_hash'>[],
): Promise<PixelKeyListing[]> {
  if (!keys.length) return [];
  const ids = keys.map((k) => k.id);
  const origins = await db
    .selectFrom('control.pixel_origins')
    .selectAll()
    .where('pixel_key_id', 'in', ids)
    .orderBy('origin')
    .execute();
  return keys.map((k) => ({
    ...k,
    origins: origins.filter((o) => o.pixel_key_id === k.id).map((o) => o.origin),
  }));
}

/** One pixel key with its origins, or `not_found`. */
export async function describePixelKey(db: Kysely<Database>, pixelKeyId: string): Promise<PixelKeyListing> {
  const k = await db
    .selectFrom('control.pixel_keys')
    .select(['id', 'account_id', 'prefix', 'created_at', 'revoked_at'])
    .where('id', '=', pixelKeyId)
    .executeTakeFirst();
  if (!k) throw new ControlPlaneError('not_found', `no pixel key ${pixelKeyId}`);
  const [listed] = await withOrigins(db, [k]);
  return listed!;
}

/** The pixel keys of an account with their origins, oldest first. */
export async function listPixelKeys(db: Kysely<Database>, accountId: string): Promise<PixelKeyListing[]> {
  const keys = await db
    .selectFrom('control.pixel_keys')
    .select(['id', 'account_id', 'prefix', 'created_at', 'revoked_at'])
    .where('account_id', '=', accountId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return withOrigins(db, keys);
}

/**
 * Webhook subscriptions of an account, without their secrets (`active`: not removed; `id`: that one
 * only, for GET /v1/webhooks/{id}).
 */
export async function listWebhookSubscriptions(
  db: Kysely<Database>,
  accountId: string,
  o: { readonly active?: boolean; readonly id?: string } = {},
) {
  return db
    .selectFrom('control.webhook_subscriptions')
    .select(['id', 'account_id', 'url', 'event_types', 'created_at', 'disabled_at'])
    .where('account_id', '=', accountId)
    .$if(o.active === true, (q) => q.where('disabled_at', 'is', null))
    .$if(o.id !== undefined, (q) => q.where('id', '=', o.id!))
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** The email and SMS providers connected to an account. */
export async function listProviders(db: Kysely<Database>, accountId: string) {
  return db
    .selectFrom('control.providers')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('provider')
    .execute();
}

/** The token hash of an account's tile and whether it was disconnected; undefined when never connected. */
export async function findTileToken(
  db: Kysely<Database>,
  accountId: string,
  tile: TileName,
): Promise<Pick<Selectable<TilesTable>, 'token_hash' | 'disconnected_at'> | undefined> {
  return db
    .selectFrom('control.tiles')
    .select(['token_hash', 'disconnected_at'])
    .where('account_id', '=', accountId)
    .where('tile', '=', tile)
    .executeTakeFirst();
}
