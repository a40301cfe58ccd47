import type { Pool } from '@holdfast/db';

/** The outcome of one hit on a fixed-window counter. */
export interface WindowHit {
  /** Hits in the current window, this one included. */
  readonly count: number;
  /** Whole seconds until the window ends (at least 1): the Retry-After of a 429. */
  readonly retryAfterSeconds: number;
}

/**
 * Fixed-window counters shared by every gateway process through control.rate_counters. One hit is
 * one round trip: an upsert that increments and returns the count atomically, so two processes (or
 * two requests of one) can never both see the same count.
 *
 * @example
 * const { count, retryAfterSeconds } = await counter.hit('ingest:key:…', 60_000, clock.now());
 * if (count > 600) throw new RateLimitedError(retryAfterSeconds);
 */
export class RateCounter {
  constructor(private readonly pool: Pool) {}

  async hit(bucket: string, windowMs: number, now: Date): Promise<WindowHit> {
    const start = Math.floor(now.getTime() / windowMs) * windowMs;
    const { rows } = await this.pool.query<{ count: number }>(
      `insert into control.rate_counters as c (bucket, window_start, count) values ($1, $2, 1)
       on conflict (bucket, window_start) do update set count = c.count + 1
       returning count`,
      [bucket, new Date(start)],
    );
    return {
      count: rows[0]!.count,
      retryAfterSeconds: Math.max(1, Math.ceil((start + windowMs - now.getTime()) / 1000)),
    };
  }

  /** Deletes windows that ended before `before` (the janitor calls it). */
  async purge(before: Date): Promise<number> {
    const r = await this.pool.query(`delete from control.rate_counters where window_start < $1`, [before]);
    return r.rowCount ?? 0;
  }
}
