import { STATUS_CODES } from 'node:http';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { HttpError, type Logger } from '@holdfast/platform';
import {
  ClientAbortedError,
  drainAfterEarlyAnswer,
  PAYLOAD_TOO_LARGE_TEXT,
  PayloadTooLargeError,
} from './body-reader.js';
import { loggedRoute } from './redact-path.js';
import { ValidationFailedError } from './validation-failed.js';

/** The detail of an unexpected failure: nothing about the cause leaks to the client. */
export const INTERNAL_ERROR_DETAIL = 'Internal server error.';

/**
 * The one place where errors become the spec's bodies (spec "Errors"):
 * - PayloadTooLargeError → 413, text/plain `payload too large`;
 * - ValidationFailedError → 422 `{detail: [{loc, msg, type, ...}]}`;
 * - any other HttpError → its status and headers (Retry-After on 429), `{detail: string}`;
 * - anything else → logged, 500 `{detail}`.
 * After answering early, the unread rest of the body is drained so the client sees the answer.
 */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    if (err instanceof ClientAbortedError) return;
    if (res.headersSent) {
      logger.error('error_after_headers_sent', { error: (err as Error).message });
      req.socket.destroy();
      return;
    }
    if (err instanceof PayloadTooLargeError) {
      res.status(413).type('text/plain').send(PAYLOAD_TOO_LARGE_TEXT);
    } else if (err instanceof ValidationFailedError) {
      res.status(422).json({ detail: err.issues });
    } else if (err instanceof HttpError) {
      res.status(err.status).set(err.headers).json({ detail: err.detail });
    } else if (isClientError(err)) {
      // Errors express itself raises for malformed requests (for example an undecodable path). Their
      // message quotes what was sent ("Failed to decode param '…'"): the answer names the status only.
      res.status(err.status).json({ detail: STATUS_CODES[err.status] ?? 'Bad Request' });
    } else {
      logger.error('unhandled_error', {
        method: req.method,
        // The template (or redacted path), never req.path: /unsubscribe/<token> would log the token.
        route: loggedRoute(req, res),
        error: (err as Error)?.message,
        stack: (err as Error)?.stack,
      });
      res.status(500).json({ detail: INTERNAL_ERROR_DETAIL });
    }
    drainAfterEarlyAnswer(req);
  };
}

function isClientError(err: unknown): err is { status: number; message: string } {
  const status = (err as { status?: unknown } | null)?.status;
  return typeof status === 'number' && status >= 400 && status < 500;
}

/** Unknown routes: 404 `{detail}` like every other error. */
export const notFound: RequestHandler = (_req, res) => {
  res.status(404).json({ detail: 'Not Found' });
};
