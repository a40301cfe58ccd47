import { randomUUID } from 'node:crypto';
import type { RequestHandler, Response } from 'express';
import { startServerSpan, type Logger } from '@holdfast/platform';
import { loggedRoute } from './redact-path.js';
import { runAsRequest } from './request-context.js';

/** The longest X-Request-Id taken from a client. */
export const MAX_REQUEST_ID_LENGTH = 128;

// Printable, header- and log-safe characters only: UUIDs, ULIDs, W3C trace ids and the usual
// `service:host/123` shapes pass; anything else (spaces, quotes, non-ASCII) is replaced.
const WELL_FORMED = new RegExp(`^[A-Za-z0-9._:/+=-]{1,${MAX_REQUEST_ID_LENGTH}}$`);

/** The request id of a request: the client's X-Request-Id when it is well formed, else a new UUID. */
export function requestIdFor(sent: string | undefined): string {
  return sent !== undefined && WELL_FORMED.test(sent) ? sent : randomUUID();
}

/** The request id `accessLog` gave this request (undefined for requests that did not pass it). */
export function requestIdOf(res: Response): string | undefined {
  return res.locals.requestId as string | undefined;
}

/**
 * Gives every request an id (the client's X-Request-Id when well formed, else a new one), echoes it
 * in the answer's X-Request-Id, and writes one `http_request` line when the request ends: method,
 * route template (`loggedRoute`: never the raw path or query, which may carry a token or personal
 * data; an unmatched path is redacted), status, duration,
 * account id when authenticated, request id. Logged at info: LOG_LEVEL=warn silences these lines.
 */
export function accessLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = performance.now();
    const requestId = requestIdFor(req.get('x-request-id'));
    res.locals.requestId = requestId;
    res.setHeader('X-Request-Id', requestId);
    // Tracing on: the request's server span (continuing the client's traceparent), ended below.
    const span = startServerSpan(`HTTP ${req.method}`, req.headers, {
      'http.request.method': req.method,
      'holdfast.request_id': requestId,
    });
    res.once('close', () => {
      const route = loggedRoute(req, res);
      const principal = res.locals.principal as { accountId?: string } | undefined;
      span?.end(
        `${req.method} ${route}`,
        {
          'http.route': route,
          'http.response.status_code': res.statusCode,
          ...(principal?.accountId ? { 'holdfast.account_id': principal.accountId } : {}),
        },
        res.statusCode >= 500,
      );
      logger.info('http_request', {
        method: req.method,
        route,
        status: res.statusCode,
        duration_ms: Math.round((performance.now() - started) * 100) / 100,
        account_id: principal?.accountId ?? null,
        request_id: requestId,
        // The client went away before the whole answer was written.
        ...(res.writableFinished ? {} : { aborted: true }),
      });
    });
    // Every record the request appends carries its id (request-context.ts).
    runAsRequest(requestId, span ? () => span.run(next) : next);
  };
}
