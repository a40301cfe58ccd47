import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';

/**
 * A strong ETag of a JSON answer: the SHA-256 of its exact bytes, truncated to 128 bits. Equal
 * bodies give equal tags, so a client that sends it back in If-None-Match gets a 304 while nothing
 * it would see has changed (a new recompute, a profile write, a new lift report all change it).
 *
 * @example
 * etagOf('{"a":1}'); // '"5bd2...."'
 */
export function etagOf(body: string): string {
  return `"${createHash('sha256').update(body, 'utf8').digest('base64url').slice(0, 22)}"`;
}

/**
 * Whether If-None-Match names `etag` (RFC 9110 13.1.2: a list, `*`, and weak tags compared weakly).
 *
 * @example
 * notModified('W/"x", "y"', '"x"'); // true
 */
export function notModified(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  const tags = ifNoneMatch.split(',').map((t) => t.trim().replace(/^W\//, ''));
  return tags.includes('*') || tags.includes(etag);
}

/**
 * Answers `body` as JSON with its ETag and `Cache-Control: private, no-cache` (a cache must
 * revalidate: the answer belongs to one key's account), or 304 without a body when If-None-Match
 * names it.
 */
export function sendCachedJson(req: Request, res: Response, body: unknown): void {
  sendCachedText(req, res, JSON.stringify(body));
}

/** {@link sendCachedJson} for a body that already is JSON text. */
export function sendCachedText(req: Request, res: Response, text: string): void {
  const etag = etagOf(text);
  res.set('ETag', etag);
  res.set('Cache-Control', 'private, no-cache');
  if (notModified(req.get('if-none-match'), etag)) {
    res.status(304).end();
    return;
  }
  res.type('application/json').send(text);
}
