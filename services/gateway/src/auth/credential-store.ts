import { createDb, findTileToken, type Database, type Pool } from '@holdfast/db';
import type { Kysely } from 'kysely';

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

interface Entry<T> {
  readonly value: T;
  readonly until: number;
}

/**
 * Credential lookups with a short cache. Revocation must bite within a second (DESIGN "Control
 * plane"): `invalidate()` drops everything and is called on every `holdfast_credentials`
 * notification; while that LISTEN connection is down the cache is bypassed (`setTrusted(false)`).
 * A generation counter stops a lookup that raced with an invalidation from re-filling the cache
 * with what it read before the change.
 */
export class CredentialStore {
  private readonly keys = new Map<string, Entry<ApiKeyRecord | null>>();
  private readonly tiles = new Map<string, Entry<TileRecord | null>>();
  private generation = 0;
  private trusted = false;
  private readonly db: Kysely<Database>;

  constructor(
    pool: Pool,
    private readonly ttlMs: number,
  ) {
    this.db = createDb(pool);
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
    return this.cached(this.keys, hash.toString('hex'), async () => {
      const r = await this.db
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
    });
  }

  /** The custom-integration tile of an account, or null when there never was one. */
  customIntegrationTile(accountId: string): Promise<TileRecord | null> {
    return this.cached(this.tiles, accountId, async () => {
      const r = await findTileToken(this.db, accountId, 'custom_integration');
      return r ? { accountId, tokenHash: r.token_hash, connected: r.disconnected_at === null } : null;
    });
  }

  private async cached<T>(map: Map<string, Entry<T>>, key: string, load: () => Promise<T>): Promise<T> {
    const now = performance.now();
    const hit = map.get(key);
    if (hit && this.trusted && hit.until > now) return hit.value;
    const generation = this.generation;
    const value = await load();
    if (this.trusted && generation === this.generation && this.ttlMs > 0) {
      // Bounded: unknown keys are cached too (a flood of random keys must not reach PostgreSQL
      // every time), so the map is cleared rather than allowed to grow without end.
      if (map.size >= 10_000) map.clear();
      map.set(key, { value, until: now + this.ttlMs });
    }
    return value;
  }
}
