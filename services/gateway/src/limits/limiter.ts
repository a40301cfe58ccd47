import { RateLimitedError } from '@holdfast/platform';
import { LIMITS, MINUTE_MS } from './policy.js';
import type { RateCounter } from './rate-counter.js';

/**
 * The spec's per-minute limits on top of the shared counters. Every refusal is a RateLimitedError:
 * 429, `Rate limit exceeded, try again in about N seconds`, header Retry-After.
 */
export class Limiter {
  constructor(private readonly counter: RateCounter) {}

  /** 600 requests per minute per ingest key (per account for the legacy tile token). */
  async request(bucket: string, now: Date): Promise<void> {
    const hit = await this.counter.hit(`req:${bucket}`, MINUTE_MS, now);
    if (hit.count > LIMITS.requestsPerMinute) throw new RateLimitedError(hit.retryAfterSeconds);
  }

  /**
   * Counts one failed authentication of `ip`. Returns the 429 to answer instead of the 401/404/400
   * once the IP has failed more than 30 times this minute, else `null` (answer the original error).
   */
  async failedAuth(ip: string, now: Date): Promise<RateLimitedError | null> {
    const hit = await this.counter.hit(`authfail:${ip}`, MINUTE_MS, now);
    return hit.count > LIMITS.failedAuthPerMinute ? new RateLimitedError(hit.retryAfterSeconds) : null;
  }
}
