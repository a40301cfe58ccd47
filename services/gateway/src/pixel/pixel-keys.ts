import { createDb, type Database, type Pool } from '@holdfast/postgres';
import { hashToken } from '@holdfast/control-plane';
import { sql, type Kysely } from 'kysely';

/** A pixel key as the collector needs it. */
export interface PixelKeyRecord {
  readonly id: string;
  readonly accountId: string;
  readonly revoked: boolean;
  readonly isDemo: boolean;
  /** The allow-list, normalised as `scheme://host[:port]` (URL.origin). */
  readonly origins: ReadonlySet<string>;
}

interface Entry<T> {
  readonly value: T;
  readonly until: number;
}

/**
 * The browser's Origin header in the form the allow-list stores (`URL.origin`: lower-case host,
 * default port dropped), or null when absent, opaque ("null") or not an http(s) origin.
 */
export function normalizeRequestOrigin(header: string | undefined): string | null {
  if (!header || header === 'null') return null;
  try {
    const u = new URL(header);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : null;
  } catch {
    return null;
  }
}

/**
 * Pixel keys and their origin allow-lists, read from control.pixel_keys / pixel_origins / accounts.
 * The collector is the hottest route (6,000 calls per minute per key), so lookups are cached, but for
 * one second at most: DESIGN "Control plane" allows no cache to serve a revoked key longer than that.
 * Unknown keys and origins are cached too (a flood of random keys must not reach PostgreSQL each
 * time); the maps are cleared when they grow past 10,000 entries.
 */
export class PixelKeyDirectory {
  private readonly keys = new Map<string, Entry<PixelKeyRecord | null>>();
  private readonly origins = new Map<string, Entry<boolean>>();
  private readonly db: Kysely<Database>;

  constructor(
    pool: Pool,
    private readonly ttlMs = 1_000,
  ) {
    this.db = createDb(pool);
  }

  /** The key presented in a collector request, or null when no such key exists. */
  byKey(key: string): Promise<PixelKeyRecord | null> {
    const hash = hashToken(key);
    return this.cached(this.keys, hash.toString('hex'), async () => {
      const r = await this.db
        .selectFrom('control.pixel_keys as k')
        .innerJoin('control.accounts as a', 'a.id', 'k.account_id')
        .leftJoin('control.pixel_origins as o', 'o.pixel_key_id', 'k.id')
        .select([
          'k.id',
          'k.account_id',
          'k.revoked_at',
          'a.is_demo',
          sql<string[]>`coalesce(array_agg(o.origin) filter (where o.origin is not null), '{}')`.as(
            'origins',
          ),
        ])
        .where('k.key_hash', '=', hash)
        .groupBy(['k.id', 'a.is_demo'])
        .executeTakeFirst();
      return r
        ? {
            id: r.id,
            accountId: r.account_id,
            revoked: r.revoked_at !== null,
            isDemo: r.is_demo,
            origins: new Set(r.origins),
          }
        : null;
    });
  }

  /**
   * Whether any live pixel key allows `origin`: what a CORS preflight can check, since the key only
   * arrives with the body of the real request.
   */
  originAllowedAnywhere(origin: string): Promise<boolean> {
    return this.cached(this.origins, origin, async () => {
      const allowing = await this.db
        .selectFrom('control.pixel_origins as o')
        .innerJoin('control.pixel_keys as k', 'k.id', 'o.pixel_key_id')
        .select('o.origin')
        .where('o.origin', '=', origin)
        .where('k.revoked_at', 'is', null)
        .limit(1)
        .executeTakeFirst();
      return allowing !== undefined;
    });
  }

  private async cached<T>(map: Map<string, Entry<T>>, key: string, load: () => Promise<T>): Promise<T> {
    const now = performance.now();
    const hit = map.get(key);
    if (hit && hit.until > now) return hit.value;
    const value = await load();
    if (this.ttlMs > 0) {
      if (map.size >= 10_000) map.clear();
      map.set(key, { value, until: now + this.ttlMs });
    }
    return value;
  }
}
