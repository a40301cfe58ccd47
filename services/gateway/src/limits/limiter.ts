import type { Response } from 'express';
import { RateLimitedError } from '@holdfast/platform';
import { LIMITS, MINUTE_MS } from './policy.js';
import type { RateCounter, WindowHit } from './rate-counter.js';

/** A named quota policy, as the RateLimit headers name it. */
export type RateLimitPolicy = 'per-key' | 'per-account' | 'failed-auth' | 'read';

/**
 * Tells the client where it stands, in the syntax of the IETF draft "RateLimit header fields for HTTP"
 * (draft-ietf-httpapi-ratelimit-headers-10): `RateLimit-Policy: "per-key";q=600;w=60` (quota q per
 * window of w seconds) and `RateLimit: "per-key";r=<remaining>;t=<seconds until the window resets>`,
 * so a client can slow down before the 429.
 *
 * @example
 * setRateLimitHeaders(res, 'per-key', 600, hit); // RateLimit: "per-key";r=599;t=42
 */
export function setRateLimitHeaders(
  res: Response,
  policy: RateLimitPolicy,
  quota: number,
  hit: WindowHit,
): void {
  const windowSeconds = MINUTE_MS / 1000;
  res.set('RateLimit-Policy', `"${policy}";q=${quota};w=${windowSeconds}`);
  res.set('RateLimit', `"${policy}";r=${Math.max(0, quota - hit.count)};t=${hit.retryAfterSeconds}`);
}

/**
 * The spec's per-minute limits on top of the shared counters. Every refusal is a RateLimitedError:
 * 429, `Rate limit exceeded, try again in about N seconds`, header Retry-After. When a response is
 * given, its RateLimit headers are set first (on the refusal too).
 */
export class Limiter {
  constructor(private readonly counter: RateCounter) {}

  /**
   * 600 requests per minute per ingest key (policy `per-key`), or per account for the legacy tile
   * token and the zero-party webhook (`per-account`).
   */
  async request(
    bucket: string,
    now: Date,
    res?: Response,
    policy: RateLimitPolicy = 'per-key',
  ): Promise<void> {
    const hit = await this.counter.hit(`req:${bucket}`, MINUTE_MS, now);
    if (res) setRateLimitHeaders(res, policy, LIMITS.requestsPerMinute, hit);
    if (hit.count > LIMITS.requestsPerMinute) throw new RateLimitedError(hit.retryAfterSeconds);
  }

  /**
   * 1,200 requests per minute per key on the /v1/ read routes (policy `read`), counted apart from
   * the key's ingest requests.
   */
  async read(keyId: string, now: Date, res?: Response): Promise<void> {
    const hit = await this.counter.hit(`read:${keyId}`, MINUTE_MS, now);
    if (res) setRateLimitHeaders(res, 'read', LIMITS.readRequestsPerMinute, hit);
    if (hit.count > LIMITS.readRequestsPerMinute) throw new RateLimitedError(hit.retryAfterSeconds);
  }

  /**
   * The failed-authentication limit, checked BEFORE any key lookup: one read of the IP's counter
   * (`peekSharded`, no write). Returns the 429 to answer at once, without touching keys, when the IP
   * has already failed more than 30 times this minute (and sets the `failed-auth` headers), else null.
   */
  async failedAuthBlocked(ip: string, now: Date, res?: Response): Promise<RateLimitedError | null> {
    const hit = await this.counter.peekSharded(`authfail:${ip}`, FAILED_AUTH_SHARDS, MINUTE_MS, now);
    if (hit.count <= LIMITS.failedAuthPerMinute) return null;
    if (res) setRateLimitHeaders(res, 'failed-auth', LIMITS.failedAuthPerMinute, hit);
    return new RateLimitedError(hit.retryAfterSeconds);
  }

  /**
   * `failedAuthBlocked(ip)` then `read(keyId)` in ONE round trip (`peekShardedThenHit`), for a read
   * whose key the credential cache already answered: throws the failed-auth 429 (its headers set, the
   * read not counted) when the IP is over its failed-authentication limit, else counts the read and
   * throws the read 429 past 1,200 a minute. Same answers, headers and counts as the two calls.
   */
  async readUnlessBlocked(ip: string, keyId: string, now: Date, res?: Response): Promise<void> {
    const { peeked, hit } = await this.counter.peekShardedThenHit(
      `authfail:${ip}`,
      FAILED_AUTH_SHARDS,
      LIMITS.failedAuthPerMinute,
      `read:${keyId}`,
      MINUTE_MS,
      now,
    );
    if (hit === null) {
      if (res) setRateLimitHeaders(res, 'failed-auth', LIMITS.failedAuthPerMinute, peeked);
      throw new RateLimitedError(peeked.retryAfterSeconds);
    }
    if (res) setRateLimitHeaders(res, 'read', LIMITS.readRequestsPerMinute, hit);
    if (hit.count > LIMITS.readRequestsPerMinute) throw new RateLimitedError(hit.retryAfterSeconds);
  }

  /**
   * Counts one failed authentication of `ip` (an address as `rateLimitAddress` gives it: IPv6 per
   * /64) on a sharded counter (`hitSharded`: concurrent failures of one IP do not queue on one row).
   * Returns the 429 to answer instead of the 401/404/400 once the IP has failed more than 30 times
   * this minute, else `null` (answer the original error). Sets the `failed-auth` headers.
   */
  async failedAuth(ip: string, now: Date, res?: Response): Promise<RateLimitedError | null> {
    const hit = await this.counter.hitSharded(`authfail:${ip}`, FAILED_AUTH_SHARDS, MINUTE_MS, now);
    if (res) setRateLimitHeaders(res, 'failed-auth', LIMITS.failedAuthPerMinute, hit);
    return hit.count > LIMITS.failedAuthPerMinute ? new RateLimitedError(hit.retryAfterSeconds) : null;
  }
}

/** Rows each IP's failed-authentication counter is spread over (see `RateCounter.hitSharded`). */
export const FAILED_AUTH_SHARDS = 8;
