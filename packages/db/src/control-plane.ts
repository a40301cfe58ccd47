import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { displayPrefix, hashToken, mintToken } from './credentials.js';
import type { ApiKeyKind, Database, TileName } from './schema.js';

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

async function requireAccount(db: Kysely<Database>, accountId: string) {
  const acc = await db
    .selectFrom('control.accounts')
    .selectAll()
    .where('id', '=', accountId)
    .executeTakeFirst();
  if (!acc) throw new ControlPlaneError('not_found', `no account ${accountId}`);
  return acc;
}

/**
 * Mints a key and returns it in clear, once; only its hash is stored. Ingest keys are limited to 10
 * live ones per account, and `ingest_test` keys are for sandbox accounts only.
 */
export async function mintApiKey(
  db: Kysely<Database>,
  accountId: string,
  kind: ApiKeyKind,
  now = new Date(),
): Promise<{ id: string; key: string; prefix: string }> {
  const acc = await requireAccount(db, accountId);
  if (kind === 'ingest_test' && !acc.is_sandbox) {
    throw new ControlPlaneError(
      'invalid',
      'tk_test_ keys are for sandbox accounts only (mark the account as sandbox)',
    );
  }
  if (kind === 'ingest_live' && acc.is_sandbox) {
    throw new ControlPlaneError('invalid', 'a sandbox account takes tk_test_ keys, not tk_live_');
  }
  return db.transaction().execute(async (trx) => {
    if (kind !== 'outbound') {
      // Serialise concurrent mints of one account so the limit cannot be raced past.
      await trx.selectFrom('control.accounts').select('id').where('id', '=', accountId).forUpdate().execute();
      const { n } = await trx
        .selectFrom('control.api_keys')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('account_id', '=', accountId)
        .where('kind', 'in', ['ingest_live', 'ingest_test'])
        .where((eb) =>
          eb.and([
            eb('revoked_at', 'is', null),
            eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]),
          ]),
        )
        .executeTakeFirstOrThrow();
      if (Number(n) >= MAX_LIVE_INGEST_KEYS) {
        throw new ControlPlaneError(
          'limit',
          `account already has ${MAX_LIVE_INGEST_KEYS} live ingest keys; revoke one first`,
        );
      }
    }
    const key = mintToken(kind);
    const id = randomUUID();
    await trx
      .insertInto('control.api_keys')
      .values({ id, account_id: accountId, kind, prefix: displayPrefix(key), key_hash: hashToken(key) })
      .execute();
    return { id, key, prefix: displayPrefix(key) };
  });
}

/** Revokes a key at once. */
export async function revokeApiKey(db: Kysely<Database>, keyId: string, now = new Date()): Promise<void> {
  const r = await db
    .updateTable('control.api_keys')
    .set({ revoked_at: now })
    .where('id', '=', keyId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  if (!r.numUpdatedRows) throw new ControlPlaneError('not_found', `no live key ${keyId}`);
}

/** Rotates a key: a new key now, the old one valid for `graceSeconds` more. */
export async function rotateApiKey(
  db: Kysely<Database>,
  keyId: string,
  graceSeconds: number,
  now = new Date(),
): Promise<{ id: string; key: string; prefix: string; oldKeyExpiresAt: Date }> {
  const old = await db.selectFrom('control.api_keys').selectAll().where('id', '=', keyId).executeTakeFirst();
  if (!old || old.revoked_at) throw new ControlPlaneError('not_found', `no live key ${keyId}`);
  // A key already rotated (or expired) keeps its deadline: rotating it again would revive or extend it.
  if (old.expires_at)
    throw new ControlPlaneError('conflict', `key ${keyId} was already rotated; rotate its successor`);
  const expires = new Date(now.getTime() + graceSeconds * 1000);
  await db.updateTable('control.api_keys').set({ expires_at: expires }).where('id', '=', keyId).execute();
  const fresh = await mintApiKey(db, old.account_id, old.kind, now);
  return { ...fresh, oldKeyExpiresAt: expires };
}

/** Connects a tile (or re-issues its token) and returns the token in clear, once. */
export async function connectTile(
  db: Kysely<Database>,
  accountId: string,
  tile: TileName,
): Promise<{ token: string }> {
  await requireAccount(db, accountId);
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
  await requireAccount(db, accountId);
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

/** An outbound webhook subscription; the whsec_ secret is returned once for the receiver. */
export async function createWebhookSubscription(
  db: Kysely<Database>,
  accountId: string,
  url: string,
): Promise<{ id: string; secret: string }> {
  await requireAccount(db, accountId);
  try {
    new URL(url);
  } catch {
    throw new ControlPlaneError('invalid', `"${url}" is not a URL`);
  }
  const secret = mintToken('webhook_secret');
  const id = randomUUID();
  await db
    .insertInto('control.webhook_subscriptions')
    .values({ id, account_id: accountId, url, secret })
    .execute();
  return { id, secret };
}

/** Connects an email or SMS provider: sends for that channel go to `endpointUrl`. */
export async function connectProvider(
  db: Kysely<Database>,
  accountId: string,
  provider: string,
  channel: 'email' | 'sms',
  endpointUrl: string,
): Promise<void> {
  await requireAccount(db, accountId);
  await db
    .insertInto('control.providers')
    .values({ account_id: accountId, provider, channel, endpoint_url: endpointUrl })
    .onConflict((oc) =>
      oc.columns(['account_id', 'provider']).doUpdateSet({ channel, endpoint_url: endpointUrl }),
    )
    .execute();
}
