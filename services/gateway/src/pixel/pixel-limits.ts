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

  /** 600 requests per minute per client IP; counted before the body is read. */
  async perIp(ip: string, now: Date): Promise<void> {
    const hit = await this.counter.hit(`pixel:ip:${ip}`, MINUTE_MS, now);
    if (hit.count > PIXEL_LIMITS.requestsPerMinutePerIp) throw new RateLimitedError(hit.retryAfterSeconds);
  }

  /** 6,000 requests per minute per pixel key; counted once the key is known to be valid. */
  async perKey(pixelKeyId: string, now: Date): Promise<void> {
    const hit = await this.counter.hit(`pixel:key:${pixelKeyId}`, MINUTE_MS, now);
    if (hit.count > PIXEL_LIMITS.requestsPerMinutePerKey) throw new RateLimitedError(hit.retryAfterSeconds);
  }
}
