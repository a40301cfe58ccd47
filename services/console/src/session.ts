// Sessions: the cookie carries a random secret, PostgreSQL keeps its digest (control.console_sessions).
// A new secret is minted at each step up (password, then second factor), so a secret planted before
// sign-in (session fixation) never becomes a signed-in session. CSRF tokens are derived from the
// secret, so they need no storage and die with the session.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';

export interface CookieSettings {
  /** Secure cookie with the __Host- prefix (https, or a browser's localhost). */
  readonly secure: boolean;
}

/** The cookie's name: `__Host-` binds it to this host, path / and Secure (no subdomain can set it). */
export function sessionCookieName(s: CookieSettings): string {
  return s.secure ? '__Host-holdfast_console' : 'holdfast_console';
}

/** The value of cookie `name` in the request, or undefined. */
export function readCookie(req: Request, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) {
      const v = part.slice(eq + 1).trim();
      return /^[A-Za-z0-9_-]{43}$/.test(v) ? v : undefined;
    }
  }
  return undefined;
}

/** Sets the session cookie: HttpOnly (no script reads it), SameSite=Strict, Secure when https. */
export function setSessionCookie(res: Response, s: CookieSettings, secret: string, maxAgeMs: number): void {
  res.cookie(sessionCookieName(s), secret, {
    httpOnly: true,
    secure: s.secure,
    sameSite: 'strict',
    path: '/',
    maxAge: maxAgeMs,
  });
}

export function clearSessionCookie(res: Response, s: CookieSettings): void {
  res.clearCookie(sessionCookieName(s), { httpOnly: true, secure: s.secure, sameSite: 'strict', path: '/' });
}

/** The CSRF token of a session: an HMAC of a fixed label under the session's secret. */
export function csrfToken(sessionSecret: string): string {
  return createHmac('sha256', sessionSecret).update('holdfast-console-csrf').digest('base64url');
}

/** Whether `given` is the session's CSRF token (compared in constant time). */
export function csrfMatches(sessionSecret: string, given: unknown): boolean {
  if (typeof given !== 'string') return false;
  const want = Buffer.from(csrfToken(sessionSecret));
  const got = Buffer.from(given);
  return got.length === want.length && timingSafeEqual(got, want);
}

/**
 * Whether a state-changing request comes from this console's own pages: the browser's Origin (or,
 * without one, Sec-Fetch-Site) must say same origin. A request with neither is not from a browser
 * (no ambient cookie to abuse) and is judged by its CSRF token alone.
 */
export function sameOrigin(req: Pick<Request, 'headers'>): boolean {
  const origin = req.headers.origin;
  if (typeof origin === 'string' && origin !== 'null') {
    try {
      return new URL(origin).host === req.headers.host;
    } catch {
      return false;
    }
  }
  if (origin === 'null') return false;
  const site = req.headers['sec-fetch-site'];
  return site === undefined || site === 'same-origin' || site === 'none';
}
