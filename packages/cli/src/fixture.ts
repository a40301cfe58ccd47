import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import {
  connectTile,
  createAccount,
  createPixelKey,
  mintApiKey,
  normalizeOrigin,
  revokeApiKey,
} from '@holdfast/control-plane';
import type { Database } from '@holdfast/postgres';

/** The ready-made accounts and credentials of `holdfast dev fixture` (every value a string). */
export interface DevFixture {
  readonly BASE_URL: string;
  readonly ACCOUNT_ID_A: string;
  readonly INGEST_KEY_A: string;
  readonly TILE_TOKEN_A: string;
  readonly ZERO_PARTY_TOKEN_A: string;
  readonly PIXEL_KEY_A: string;
  readonly PIXEL_ORIGIN_A: string;
  readonly REVOKED_KEY: string;
  readonly OUTBOUND_SK_KEY: string;
  readonly ACCOUNT_ID_B: string;
  readonly INGEST_KEY_B: string;
  readonly ACCOUNT_ID_C: string;
  readonly INGEST_KEY_C: string;
  readonly RATE_KEY: string;
}

export interface DevFixtureOptions {
  /** Where the gateway listens; default http://127.0.0.1:8080. */
  readonly baseUrl?: string;
  /** The origin on A's pixel allow-list; default http://127.0.0.1:5173. */
  readonly pixelOrigin?: string;
  /** A's storefront domain; default shop-a.example.com. */
  readonly storefrontDomain?: string;
}

export const DEFAULT_BASE_URL = 'http://127.0.0.1:8080';
export const DEFAULT_PIXEL_ORIGIN = 'http://127.0.0.1:5173';

/**
 * Creates a fresh set of accounts on the running stack, for manual testing and black-box suites:
 * A has both tiles, a pixel key and a storefront domain; B is a second ordinary account; C has no
 * tile; REVOKED_KEY is a revoked key of A; RATE_KEY belongs to an account of its own, so rate-limit
 * tests cannot starve A. Every call makes new accounts (names carry a random suffix).
 *
 * @example
 * const f = await createDevFixture(db, { baseUrl: 'http://127.0.0.1:8080' });
 * await fetch(`${f.BASE_URL}/ingest/health`, { headers: { authorization: `Bearer ${f.INGEST_KEY_A}` } });
 */
export async function createDevFixture(
  db: Kysely<Database>,
  opts: DevFixtureOptions = {},
): Promise<DevFixture> {
  const suffix = randomBytes(3).toString('hex');
  const origin = normalizeOrigin(opts.pixelOrigin ?? DEFAULT_PIXEL_ORIGIN);
  const account = async (label: string, storefrontDomain: string | null) =>
    (await createAccount(db, { name: `fixture ${label} ${suffix}`, storefrontDomain })).id;
  const key = async (accountId: string, kind: 'ingest_live' | 'outbound' = 'ingest_live') =>
    mintApiKey(db, accountId, kind);

  const a = await account('A', opts.storefrontDomain ?? 'shop-a.example.com');
  const ingestA = await key(a);
  const tileA = await connectTile(db, a, 'custom_integration');
  const zeroPartyA = await connectTile(db, a, 'zero_party');
  const pixelA = await createPixelKey(db, a, [origin]);
  const revoked = await key(a);
  await revokeApiKey(db, revoked.id);
  const outbound = await key(a, 'outbound');

  const b = await account('B', 'shop-b.example.com');
  const ingestB = await key(b);
  const c = await account('C', 'shop-c.example.com');
  const ingestC = await key(c);
  const rate = await account('rate', 'shop-rate.example.com');
  const rateKey = await key(rate);

  return {
    BASE_URL: (opts.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, ''),
    ACCOUNT_ID_A: a,
    INGEST_KEY_A: ingestA.key,
    TILE_TOKEN_A: tileA.token,
    ZERO_PARTY_TOKEN_A: zeroPartyA.token,
    PIXEL_KEY_A: pixelA.key,
    PIXEL_ORIGIN_A: origin,
    REVOKED_KEY: revoked.key,
    OUTBOUND_SK_KEY: outbound.key,
    ACCOUNT_ID_B: b,
    INGEST_KEY_B: ingestB.key,
    ACCOUNT_ID_C: c,
    INGEST_KEY_C: ingestC.key,
    RATE_KEY: rateKey.key,
  };
}
