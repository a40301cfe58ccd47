import { RateLimitedError } from '@holdfast/platform';
import { MINUTE_MS } from '../limits/policy.js';
import type { RateCounter } from '../limits/rate-counter.js';

/** The collector's limits (spec "Limits"): contract, not configuration. */
export const PIXEL_LIMITS = Object.freeze({
  requestsPerMinutePerIp: 600,
  requestsPerMinutePerKey: 6_000,
  /** Body size of one collector request; one byte more is the plain-text 413. */
  bodyBytes: 48 * 1024,
});

/**
 * The collector's rate limits on the shared fixed-window counters (control.rate_counters), so they
 * hold across every gateway process. Each refusal is a RateLimitedError (429 with Retry-After).
 */
export class PixelLimiter {
  constructor(private readonly counter: RateCounter) {}

  /** 600 requests per minute per client IP (alone: for a request refused before its key passed). */
  async perIp(ip: string, now: Date): Promise<void> {
    const hit = await this.counter.hit(`pixel:ip:${ip}`, MINUTE_MS, now);
    if (hit.count > PIXEL_LIMITS.requestsPerMinutePerIp) throw new RateLimitedError(hit.retryAfterSeconds);
  }

  /**
   * Both limits of a request whose key and origin passed, in ONE round trip: the IP is counted first;
   * when it is over 600 the key is not counted (as if the request had been refused before the key
   * was known) and the IP's 429 is returned; else the key's count decides. Returns the refusal to
   * throw, with `beforeOrigin` telling whether it is the IP's (answered without CORS headers, like
   * every refusal that precedes the key check) or the key's; null when the request may proceed.
   */
  async perIpAndKey(
    ip: string,
    pixelKeyId: string,
    now: Date,
  ): Promise<{ error: RateLimitedError; beforeOrigin: boolean } | null> {
    const { first, second } = await this.counter.hitBoth(
      `pixel:ip:${ip}`,
      `pixel:key:${pixelKeyId}`,
      PIXEL_LIMITS.requestsPerMinutePerIp,
      MINUTE_MS,
      now,
    );
    if (first.count > PIXEL_LIMITS.requestsPerMinutePerIp || second === null)
      return { error: new RateLimitedError(first.retryAfterSeconds), beforeOrigin: true };
    if (second.count > PIXEL_LIMITS.requestsPerMinutePerKey)
      return { error: new RateLimitedError(second.retryAfterSeconds), beforeOrigin: false };
    return null;
  }

  /** 6,000 requests per minute per pixel key; counted once the key is known to be valid. */
  async perKey(pixelKeyId: string, now: Date): Promise<void> {
    const hit = await this.counter.hit(`pixel:key:${pixelKeyId}`, MINUTE_MS, now);
    if (hit.count > PIXEL_LIMITS.requestsPerMinutePerKey) throw new RateLimitedError(hit.retryAfterSeconds);
  }
}
