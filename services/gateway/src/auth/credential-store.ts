import { createDb, type Database, type Pool } from '@holdfast/postgres';
import { findTileToken } from '@holdfast/control-plane';
import type { Kysely } from 'kysely';
import { LRUCache } from 'lru-cache';

/** An api_keys row as authentication needs it. */
export interface ApiKeyRecord {
  readonly id: string;
  readonly accountId: string;
  readonly kind: 'ingest_live' | 'ingest_test' | 'outbound' | 'read_live';
  readonly revokedAt: Date | null;
  /** Set by rotation: the key works until then (the grace window). */
  readonly expiresAt: Date | null;
  /** The account's choice whether its ingest keys may call the /v1/ read routes too. */
  readonly readWithIngestKey: boolean;
}

/** The account's custom-integration tile (connected or not). */
export interface TileRecord {
  readonly accountId: string;
  readonly tokenHash: Buffer;
  readonly connected: boolean;
}

/** Where credentials are read when the cache cannot answer. */
export interface CredentialSource {
  apiKey(hash: Buffer): Promise<ApiKeyRecord | null>;
  customIntegrationTile(accountId: string): Promise<TileRecord | null>;
}

/** The credentials as PostgreSQL holds them (control.api_keys, the account's tiles). */
export function dbCredentialSource(pool: Pool): CredentialSource {
  const db: Kysely<Database> = createDb(pool);
  return {
    async apiKey(hash) {
      const r = await db
        .selectFrom('control.api_keys as k')
        .innerJoin('control.accounts as a', 'a.id', 'k.account_id')
        .select(['k.id', 'k.account_id', 'k.kind', 'k.revoked_at', 'k.expires_at', 'a.read_with_ingest_key'])
        .where('k.key_hash', '=', hash)
        .executeTakeFirst();
      return r
        ? {
            id: r.id,
            accountId: r.account_id,
            kind: r.kind,
            revokedAt: r.revoked_at,
            expiresAt: r.expires_at,
            readWithIngestKey: r.read_with_ingest_key,
          }
        : null;
    },
    async customIntegrationTile(accountId) {
      const r = await findTileToken(db, accountId, 'custom_integration');
      return r ? { accountId, tokenHash: r.token_hash, connected: r.disconnected_at === null } : null;
    },
  };
}

interface Entry<T> {
  readonly value: T;
  readonly until: number;
}

/** What authentication asks of the credentials (a `CredentialStore`, or its `cacheOnly()` view). */
export interface CredentialLookup {
  apiKey(hash: Buffer): Promise<ApiKeyRecord | null>;
  customIntegrationTile(accountId: string): Promise<TileRecord | null>;
}

/** Thrown by the `cacheOnly()` view when the cache cannot answer (nothing is read from PostgreSQL). */
export class NotCachedError extends Error {
  constructor() {
    super('credential not cached');
    this.name = 'NotCachedError';
  }
}

/** Entries per cache (keys, tiles) unless the constructor is told otherwise. */
export const CREDENTIAL_CACHE_MAX_ENTRIES = 10_000;

/**
 * Credential lookups with a short cache. Revocation must bite within a second (DESIGN "Control
 * plane"): `invalidate()` drops everything and is called on every `holdfast_credentials`
 * notification; while that LISTEN connection is down the cache is bypassed (`setTrusted(false)`).
 * A generation counter stops a lookup that raced with an invalidation from re-filling the cache
 * with what it read before the change.
 *
 * Bounded by least-recently-used eviction (`maxEntries` per cache): unknown keys are cached too (a
 * flood of random keys must not reach PostgreSQL every time), and the flood then evicts only the
 * coldest entries, never the live keys every request uses (a whole-map clear at the bound sent every
 * live key back to PostgreSQL at once).
 */
export class CredentialStore {
  private readonly keys: LRUCache<string, Entry<ApiKeyRecord | null>>;
  private readonly tiles: LRUCache<string, Entry<TileRecord | null>>;
  private generation = 0;
  private trusted = false;

  constructor(
    private readonly source: CredentialSource,
    private readonly ttlMs: number,
    maxEntries = CREDENTIAL_CACHE_MAX_ENTRIES,
  ) {
    this.keys = new LRUCache({ max: maxEntries });
    this.tiles = new LRUCache({ max: maxEntries });
  }

  /** Cached entries (keys + tiles), for tests and the cache bound. */
  get size(): number {
    return this.keys.size + this.tiles.size;
  }

  /** Whether cached entries may be served (the invalidation channel is up). */
  setTrusted(trusted: boolean): void {
    this.trusted = trusted;
    this.invalidate();
  }

  invalidate(): void {
    this.generation++;
    this.keys.clear();
    this.tiles.clear();
  }

  /** The key whose SHA-256 is `hash`, or null. */
  apiKey(hash: Buffer): Promise<ApiKeyRecord | null> {
    return this.cached(this.keys, hash.toString('hex'), () => this.source.apiKey(hash));
  }

  /** The custom-integration tile of an account, or null when there never was one. */
  customIntegrationTile(accountId: string): Promise<TileRecord | null> {
    return this.cached(this.tiles, accountId, () => this.source.customIntegrationTile(accountId));
  }

  /**
   * A view that answers only from the cache (under the same trust and expiry rules) and rejects with
   * `NotCachedError` otherwise: never a database read, never a cache fill.
   */
  cacheOnly(): CredentialLookup {
    const fresh = <T>(map: LRUCache<string, Entry<T>>, key: string): Promise<T> => {
      const hit = map.get(key);
      return hit && this.trusted && hit.until > performance.now()
        ? Promise.resolve(hit.value)
        : Promise.reject(new NotCachedError());
    };
    return {
      apiKey: (hash) => fresh(this.keys, hash.toString('hex')),
      customIntegrationTile: (accountId) => fresh(this.tiles, accountId),
    };
  }

  private async cached<T>(map: LRUCache<string, Entry<T>>, key: string, load: () => Promise<T>): Promise<T> {
    const now = performance.now();
    const hit = map.get(key);
    if (hit && this.trusted && hit.until > now) return hit.value;
    const generation = this.generation;
    const value = await load();
    // At the bound the least recently used entry goes (LRUCache `max`).
    if (this.trusted && generation === this.generation && this.ttlMs > 0)
      map.set(key, { value, until: now + this.ttlMs });
    return value;
  }
}
