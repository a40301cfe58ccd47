import type { RequestHandler, Response } from 'express';
import { ForbiddenError } from '@holdfast/platform';
import { normalizeRequestOrigin, type PixelKeyDirectory } from './pixel-keys.js';

/** The detail of a refused preflight. */
export const PREFLIGHT_REFUSED_DETAIL = 'Origin not allowed.';

/** Lets a page on `origin` read the collector's answer (only ever an allowed origin). */
export function allowOrigin(res: Response, origin: string): void {
  res.set('Access-Control-Allow-Origin', origin);
}

/**
 * OPTIONS /pixel/collect, the CORS preflight a browser sends before posting JSON. The pixel key only
 * arrives with the real request's body, so the preflight admits an origin that is on the allow-list
 * of any live pixel key (the POST then checks the key's own list) and refuses every other with
 * 403 `{detail}` and no CORS headers, so the browser never sends the POST. Preflights are cached by
 * the browser for two hours (Chromium's ceiling).
 */
export function preflight(keys: PixelKeyDirectory): RequestHandler {
  return async (req, res) => {
    res.vary('Origin');
    const origin = normalizeRequestOrigin(req.get('origin'));
    if (origin === null || !(await keys.originAllowedAnywhere(origin)))
      throw new ForbiddenError(PREFLIGHT_REFUSED_DETAIL);
    allowOrigin(res, origin);
    res.set({
      'Access-Control-Allow-Methods': 'POST',
      'Access-Control-Allow-Headers': 'Content-Type',
      'Access-Control-Max-Age': '7200',
    });
    res.status(204).end();
  };
}
