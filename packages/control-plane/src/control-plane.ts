import { randomUUID } from 'node:crypto';
import type { Kysely, Selectable, Transaction } from 'kysely';
import { displayPrefix, hashToken, mintToken } from './credentials.js';
import type { AccountsTable, ApiKeyKind, Database, TileName } from '@holdfast/postgres';

/** At most this many live ingest keys per account (spec, Authentication rule 1). */
export const MAX_LIVE_INGEST_KEYS = 10;
/** At most this many origins on one pixel key. */
export const MAX_PIXEL_ORIGINS = 50;

/** A rule of the control plane was broken (the CLI shows `message` and exits with code 2). */
export class ControlPlaneError extends Error {
  override readonly name = 'ControlPlaneError';
  constructor(
    readonly code: 'not_found' | 'limit' | 'invalid' | 'conflict',
    message: string,
  ) {
    super(message);
  }
}

export interface NewAccount {
  readonly name: string;
  readonly storefrontDomain?: string | null;
  readonly isDemo?: boolean;
  readonly isSandbox?: boolean;
}

export async function createAccount(db: Kysely<Database>, a: NewAccount): Promise<{ id: string }> {
  const id = randomUUID();
  await db
    .insertInto('control.accounts')
    .values({
      id,
      name: a.name,
      storefront_domain: a.storefrontDomain ?? null,
      is_demo: a.isDemo ?? false,
      is_sandbox: a.isSandbox ?? false,
    })
    .execute();
  return { id };
}

/**
 * Normalises a storefront domain to a bare host (lower case, optional port): every call-to-action is
 * built as `https://<domain>/...`, so a path, query or credentials would corrupt every link.
 *
 * @example
 * normalizeStorefrontDomain('https://Shop.Example.com/'); // 'shop.example.com'
 */
export function normalizeStorefrontDomain(input: string): string {
  const raw = input.trim();
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `https://${raw}`;
  let u: URL;
  try {
    u = new URL(withScheme);
  } catch {
    throw new ControlPlaneError('invalid', `"${input}" is not a domain like shop.example.com`);
  }
  const bad =
    !['http:', 'https:'].includes(u.protocol) ||
    (u.pathname !== '/' && u.pathname !== '') ||
    u.search ||
    u.hash ||
    u.username ||
    !u.hostname.includes('.') ||
    /\/./.test(raw.replace(/^[a-z]+:\/\//i, ''));
  if (bad) throw new ControlPlaneError('invalid', `"${input}" must be a domain like shop.example.com`);
  return u.host;
}

/** One account, or a `not_found` ControlPlaneError. */
export async function describeAccount(
  db: Kysely<Database>,
  accountId: string,
): Promise<Selectable<AccountsTable>> {
  const acc = await db
    .selectFrom('control.accounts')
    .selectAll()
    .where('id', '=', accountId)
    .executeTakeFirst();
  if (!acc) throw new ControlPlaneError('not_found', `no account ${accountId}`);
  return acc;
}

type Trx = Transaction<Database>;

const INGEST_KINDS: readonly ApiKeyKind[] = ['ingest_live', 'ingest_test'];

/**
 * The kinds a key's live-key limit counts together: ingest keys (tk_live_, tk_test_) share the 10 of
 * the spec, read keys (rk_live_) have 10 of their own ("the same limits"), outbound keys none.
 *
 * @example
 * limitedKinds('read_live'); // ['read_live']
 */
export function limitedKinds(kind: ApiKeyKind): readonly ApiKeyKind[] | null {
  if (kind === 'outbound') return null;
  return kind === 'read_live' ? ['read_live'] : INGEST_KINDS;
}

const keyNoun = (kind: ApiKeyKind): string => (kind === 'read_live' ? 'read' : 'ingest');

/** Locks the account row: every change to an account (its key set, its flags) is serialised on it. */
export async function lockAccount(trx: Trx, accountId: string) {
  const acc = await trx
    .selectFrom('control.accounts')
    .selectAll()
    .where('id', '=', accountId)
    .forUpdate()
    .executeTakeFirst();
  if (!acc) throw new ControlPlaneError('not_found', `no account ${accountId}`);
  return acc;
}

/**
 * Whether the account's ingest keys may also call the /v1/ read routes (off by default: a leaked
 * ingest key then reads nothing). Read keys (rk_live_) read whatever this says.
 */
export async function setReadWithIngestKey(
  db: Kysely<Database>,
  accountId: string,
  allowed: boolean,
): Promise<void> {
  const r = await db
    .updateTable('control.accounts')
    .set({ read_with_ingest_key: allowed })
    .where('id', '=', accountId)
    .executeTakeFirst();
  if (!r.numUpdatedRows) throw new ControlPlaneError('not_found', `no account ${accountId}`);
}

/** Sets (or clears, with null) the storefront domain that calls-to-action are built on. */
export async function setStorefrontDomain(
  db: Kysely<Database>,
  accountId: string,
  domain: string | null,
): Promise<string | null> {
  const value = domain === null ? null : normalizeStorefrontDomain(domain);
  const r = await db
    .updateTable('control.accounts')
    .set({ storefront_domain: value })
    .where('id', '=', accountId)
    .executeTakeFirst();
  if (!r.numUpdatedRows) throw new ControlPlaneError('not_found', `no account ${accountId}`);
  return value;
}

/**
 * Sets the demo and sandbox flags. Changing the sandbox flag is refused while keys of the other kind
 * still authenticate (tk_test_ belongs to sandboxes only, tk_live_ to the others).
 */
export async function markAccount(
  db: Kysely<Database>,
  accountId: string,
  flags: { readonly isDemo?: boolean; readonly isSandbox?: boolean },
  now = new Date(),
): Promise<Selectable<AccountsTable>> {
  return db.transaction().execute(async (trx) => {
    const acc = await lockAccount(trx, accountId);
    if (flags.isSandbox !== undefined && flags.isSandbox !== acc.is_sandbox) {
      const blocking: ApiKeyKind = flags.isSandbox ? 'ingest_live' : 'ingest_test';
      const n = await countWorkingKeys(trx, accountId, [blocking], now);
      if (n > 0) {
        const prefix = blocking === 'ingest_live' ? 'tk_live_' : 'tk_test_';
        throw new ControlPlaneError(
          'conflict',
          `account ${accountId} has ${n} working ${prefix} key(s); revoke them before changing the sandbox flag`,
        );
      }
    }
    const updated = {
      is_demo: flags.isDemo ?? acc.is_demo,
      is_sandbox: flags.isSandbox ?? acc.is_sandbox,
    };
    await trx.updateTable('control.accounts').set(updated).where('id', '=', accountId).execute();
    return { ...acc, ...updated };
  });
}

/**
 * Keys of `kinds` that authenticate at `now`: not revoked and not past a rotation deadline. A rotated
 * key inside its grace window still authenticates, so it counts (spec, Authentication rule 1).
 */
async function countWorkingKeys(
  trx: Trx,
  accountId: string,
  kinds: readonly ApiKeyKind[],
  now: Date,
): Promise<number> {
  const { n } = await trx
    .selectFrom('control.api_keys')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .where('kind', 'in', kinds)
    .where('revoked_at', 'is', null)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .executeTakeFirstOrThrow();
  return Number(n);
}

function checkKindForAccount(kind: ApiKeyKind, acc: { is_sandbox: boolean }): void {
  if (kind === 'ingest_test' && !acc.is_sandbox) {
    throw new ControlPlaneError(
      'invalid',
      'tk_test_ keys are for sandbox accounts only (mark the account as sandbox)',
    );
  }
  if (kind === 'ingest_live' && acc.is_sandbox) {
    throw new ControlPlaneError('invalid', 'a sandbox account takes tk_test_ keys, not tk_live_');
  }
}

async function insertKey(trx: Trx, accountId: string, kind: ApiKeyKind) {
  const key = mintToken(kind);
  const id = randomUUID();
  await trx
    .insertInto('control.api_keys')
    .values({ id, account_id: accountId, kind, prefix: displayPrefix(key), key_hash: hashToken(key) })
    .execute();
  return { id, key, prefix: displayPrefix(key) };
}

const isoSeconds = (d: Date): string => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * Mints a key and returns it in clear, once; only its hash is stored. Ingest keys are limited to 10
 * live ones per account, and `ingest_test` keys are for sandbox accounts only. One transaction: the
 * account row is locked, the limit checked, then the key inserted, so concurrent mints cannot pass the
 * limit together.
 */
export async function mintApiKey(
  db: Kysely<Database>,
  accountId: string,
  kind: ApiKeyKind,
  now = new Date(),
): Promise<{ id: string; key: string; prefix: string }> {
  return db.transaction().execute(async (trx) => {
    const acc = await lockAccount(trx, accountId);
    checkKindForAccount(kind, acc);
    const limited = limitedKinds(kind);
    if (limited && (await countWorkingKeys(trx, accountId, limited, now)) >= MAX_LIVE_INGEST_KEYS) {
      throw new ControlPlaneError(
        'limit',
        `account already has ${MAX_LIVE_INGEST_KEYS} live ${keyNoun(kind)} keys; revoke one first`,
      );
    }
    return insertKey(trx, accountId, kind);
  });
}

/**
 * A read key that stops by itself after `ttlSeconds` (its `expires_at` set at minting, like a rotated
 * key in its grace window): the console's own credential for the /v1/ read API when it draws an
 * account's dashboards, so it is one more client of that API and keeps no lasting key. It counts
 * towards the account's 10 read keys while it works, like any read key.
 */
export async function mintExpiringReadKey(
  db: Kysely<Database>,
  accountId: string,
  ttlSeconds: number,
  now = new Date(),
): Promise<{ id: string; key: string; prefix: string; expiresAt: Date }> {
  return db.transaction().execute(async (trx) => {
    await lockAccount(trx, accountId);
    if ((await countWorkingKeys(trx, accountId, ['read_live'], now)) >= MAX_LIVE_INGEST_KEYS)
      throw new ControlPlaneError(
        'limit',
        `account already has ${MAX_LIVE_INGEST_KEYS} live read keys; revoke one first`,
      );
    const minted = await insertKey(trx, accountId, 'read_live');
    const expiresAt = new Date(now.getTime() + ttlSeconds * 1000);
    await trx
      .updateTable('control.api_keys')
      .set({ expires_at: expiresAt })
      .where('id', '=', minted.id)
      .execute();
    return { ...minted, expiresAt };
  });
}

/** Revokes a key at once (one statement: it either was live and is now revoked, or `not_found`). */
export async function revokeApiKey(db: Kysely<Database>, keyId: string, now = new Date()): Promise<void> {
  await stampOnce(db, KEY_REVOKED, keyId, now, `no live key ${keyId}`);
}

const KEY_REVOKED = { table: 'control.api_keys', column: 'revoked_at' } as const;
const SUBSCRIPTION_DISABLED = { table: 'control.webhook_subscriptions', column: 'disabled_at' } as const;

/**
 * Sets `column` of row `id` to `now` in one statement, only while it is still null (revoking twice
 * keeps the first time); `not_found` with `missing` when no such row is still unset.
 */
async function stampOnce(
  db: Kysely<Database>,
  target: typeof KEY_REVOKED | typeof SUBSCRIPTION_DISABLED,
  id: string,
  now: Date,
  missing: string,
  accountId?: string,
): Promise<void> {
  const r = await db
    .updateTable(target.table)
    .set(target.column, now)
    .where('id', '=', id)
    .where(target.column, 'is', null)
    .$if(accountId !== undefined, (q) => q.where('account_id', '=', accountId!))
    .executeTakeFirst();
  if (!r.numUpdatedRows) throw new ControlPlaneError('not_found', missing);
}

/**
 * Rotates a key: a successor now, the old key valid for `graceSeconds` more. One transaction that
 * locks the account (the same lock as minting) and then the key, checks everything before it writes:
 *
 * - a revoked or expired key is `not_found`; a key already rotated is `conflict` (rotating it again
 *   would revive or extend it, and two concurrent rotations must yield one successor: the second
 *   waits for the lock, then sees the first one's deadline);
 * - ingest keys: during the grace window both keys authenticate, so both count towards the 10 live
 *   keys. At the limit the rotation is refused (`limit`) and nothing changes; with a grace of 0 the
 *   old key stops at once and the rotation fits.
 */
export async function rotateApiKey(
  db: Kysely<Database>,
  keyId: string,
  graceSeconds: number,
  now = new Date(),
): Promise<{ id: string; key: string; prefix: string; oldKeyExpiresAt: Date }> {
  return db.transaction().execute(async (trx) => {
    const found = await trx
      .selectFrom('control.api_keys')
      .select('account_id')
      .where('id', '=', keyId)
      .executeTakeFirst();
    if (!found) throw new ControlPlaneError('not_found', `no live key ${keyId}`);
    const acc = await lockAccount(trx, found.account_id);
    const old = await trx
      .selectFrom('control.api_keys')
      .selectAll()
      .where('id', '=', keyId)
      .forUpdate()
      .executeTakeFirstOrThrow();
    if (old.revoked_at) throw new ControlPlaneError('not_found', `no live key ${keyId} (it is revoked)`);
    if (old.expires_at && old.expires_at.getTime() <= now.getTime())
      throw new ControlPlaneError('not_found', `no live key ${keyId} (it is expired)`);
    if (old.expires_at)
      throw new ControlPlaneError(
        'conflict',
        `key ${keyId} was already rotated and expires at ${isoSeconds(old.expires_at)}; rotate its replacement instead`,
      );
    checkKindForAccount(old.kind, acc);
    const limited = limitedKinds(old.kind);
    if (limited) {
      const live = await countWorkingKeys(trx, old.account_id, limited, now);
      const after = live + 1 - (graceSeconds > 0 ? 0 : 1);
      if (after > MAX_LIVE_INGEST_KEYS)
        throw new ControlPlaneError(
          'limit',
          `account has ${live} live ${keyNoun(old.kind)} keys; a rotation keeps the old key working during its grace ` +
            `window, so both count: revoke another key first, or rotate with --grace 0s`,
        );
    }
    const expires = new Date(now.getTime() + graceSeconds * 1000);
    await trx.updateTable('control.api_keys').set({ expires_at: expires }).where('id', '=', keyId).execute();
    const fresh = await insertKey(trx, old.account_id, old.kind);
    return { ...fresh, oldKeyExpiresAt: expires };
  });
}

/** Connects a tile (or re-issues its token) and returns the token in clear, once. */
export async function connectTile(
  db: Kysely<Database>,
  accountId: string,
  tile: TileName,
): Promise<{ token: string }> {
  await describeAccount(db, accountId);
  const token = mintToken(tile);
  await db
    .insertInto('control.tiles')
    .values({ account_id: accountId, tile, token_hash: hashToken(token), token_prefix: displayPrefix(token) })
    .onConflict((oc) =>
      oc.columns(['account_id', 'tile']).doUpdateSet({
        token_hash: hashToken(token),
        token_prefix: displayPrefix(token),
        connected_at: new Date(),
        disconnected_at: null,
      }),
    )
    .execute();
  return { token };
}

export async function disconnectTile(db: Kysely<Database>, accountId: string, tile: TileName): Promise<void> {
  await db
    .updateTable('control.tiles')
    .set({ disconnected_at: new Date() })
    .where('account_id', '=', accountId)
    .where('tile', '=', tile)
    .execute();
}

/** A pixel key with its origin allow-list (`scheme://host[:port]`, no path, at most 50). */
export async function createPixelKey(
  db: Kysely<Database>,
  accountId: string,
  origins: readonly string[] = [],
): Promise<{ id: string; key: string }> {
  await describeAccount(db, accountId);
  const key = mintToken('pixel');
  const id = randomUUID();
  await db
    .insertInto('control.pixel_keys')
    .values({ id, account_id: accountId, prefix: displayPrefix(key), key_hash: hashToken(key) })
    .execute();
  for (const o of origins) await addPixelOrigin(db, id, o);
  return { id, key };
}

/** Normalises and checks an origin: scheme and host (and port) only. */
export function normalizeOrigin(origin: string): string {
  let u: URL;
  try {
    u = new URL(origin);
  } catch {
    throw new ControlPlaneError('invalid', `"${origin}" is not an origin like https://shop.example.com`);
  }
  if (
    !['http:', 'https:'].includes(u.protocol) ||
    (u.pathname !== '/' && u.pathname !== '') ||
    u.search ||
    u.hash
  ) {
    throw new ControlPlaneError('invalid', `"${origin}" must be scheme://host with no path`);
  }
  if (/\/./.test(origin.replace(/^[a-z]+:\/\//i, ''))) {
    throw new ControlPlaneError('invalid', `"${origin}" must be scheme://host with no path`);
  }
  return u.origin;
}

export async function addPixelOrigin(
  db: Kysely<Database>,
  pixelKeyId: string,
  origin: string,
): Promise<string> {
  const o = normalizeOrigin(origin);
  return db.transaction().execute(async (trx) => {
    await trx
      .selectFrom('control.pixel_keys')
      .select('id')
      .where('id', '=', pixelKeyId)
      .forUpdate()
      .execute();
    const { n } = await trx
      .selectFrom('control.pixel_origins')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('pixel_key_id', '=', pixelKeyId)
      .executeTakeFirstOrThrow();
    if (Number(n) >= MAX_PIXEL_ORIGINS)
      throw new ControlPlaneError('limit', `a pixel key takes at most ${MAX_PIXEL_ORIGINS} origins`);
    await trx
      .insertInto('control.pixel_origins')
      .values({ pixel_key_id: pixelKeyId, origin: o })
      .onConflict((oc) => oc.doNothing())
      .execute();
    return o;
  });
}

export async function removePixelOrigin(
  db: Kysely<Database>,
  pixelKeyId: string,
  origin: string,
): Promise<void> {
  await db
    .deleteFrom('control.pixel_origins')
    .where('pixel_key_id', '=', pixelKeyId)
    .where('origin', '=', normalizeOrigin(origin))
    .execute();
}

export async function revokePixelKey(
  db: Kysely<Database>,
  pixelKeyId: string,
  now = new Date(),
): Promise<void> {
  await db.updateTable('control.pixel_keys').set({ revoked_at: now }).where('id', '=', pixelKeyId).execute();
}

/**
 * Stops deliveries to a subscription (kept for the delivery history); `not_found` unless active (and,
 * with `accountId`, the account's: DELETE /v1/webhooks/{id}).
 */
export async function disableWebhookSubscription(
  db: Kysely<Database>,
  subscriptionId: string,
  now = new Date(),
  accountId?: string,
): Promise<void> {
  await stampOnce(
    db,
    SUBSCRIPTION_DISABLED,
    subscriptionId,
    now,
    `no active subscription ${subscriptionId}`,
    accountId,
  );
}

/** Connects an email or SMS provider: sends for that channel go to `endpointUrl`. */
export async function connectProvider(
  db: Kysely<Database>,
  accountId: string,
  provider: string,
  channel: 'email' | 'sms',
  endpointUrl: string,
): Promise<void> {
  await describeAccount(db, accountId);
  await db
    .insertInto('control.providers')
    .values({ account_id: accountId, provider, channel, endpoint_url: endpointUrl })
    .onConflict((oc) =>
      oc.columns(['account_id', 'provider']).doUpdateSet({ channel, endpoint_url: endpointUrl }),
    )
    .execute();
}
