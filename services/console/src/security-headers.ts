import type { RequestHandler } from 'express';

/**
 * Headers on every answer: a strict Content-Security-Policy (own scripts and styles only, no inline
 * code, forms post only here, never framed: clickjacking), no MIME sniffing, no Referer to another
 * site (an invite link's token must not leak; `no-referrer` would also blank the Origin of our own
 * forms, which the same-origin check reads), no caching of pages that show keys once, and HSTS when
 * served over https.
 */
export function securityHeaders(opts: { readonly https: boolean }): RequestHandler {
  const csp = [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
  return (_req, res, next) => {
    res.setHeader('Content-Security-Policy', csp);
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'same-origin');
    res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
    res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
    res.setHeader('Permissions-Policy', 'camera=(), microphone=(), geolocation=()');
    res.setHeader('Cache-Control', 'no-store');
    if (opts.https) res.setHeader('Strict-Transport-Security', 'max-age=31536000; includeSubDomains');
    next();
  };
}
