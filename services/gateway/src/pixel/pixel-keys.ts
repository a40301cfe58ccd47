import { hashToken, type Pool } from '@holdfast/db';

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

  constructor(
    private readonly pool: Pool,
    private readonly ttlMs = 1_000,
  ) {}

  /** The key presented in a collector request, or null when no such key exists. */
  byKey(key: string): Promise<PixelKeyRecord | null> {
    const hash = hashToken(key);
    return this.cached(this.keys, hash.toString('hex'), async () => {
      const { rows } = await this.pool.query<{
        id: string;
        account_id: string;
        revoked_at: Date | null;
        is_demo: boolean;
        origins: string[];
      }>(
        `select k.id, k.account_id, k.revoked_at, a.is_demo,
                coalesce(array_agg(o.origin) filter (where o.origin is not null), '{}') as origins
           from control.pixel_keys k
           join control.accounts a on a.id = k.account_id
           left join control.pixel_origins o on o.pixel_key_id = k.id
          where k.key_hash = $1
          group by k.id, a.is_demo`,
        [hash],
      );
      const r = rows[0];
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
      const { rows } = await this.pool.query<{ allowed: boolean }>(
        `select exists (
           select 1 from control.pixel_origins o join control.pixel_keys k on k.id = o.pixel_key_id
            where o.origin = $1 and k.revoked_at is null) as allowed`,
        [origin],
      );
      return rows[0]?.allowed === true;
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
