/**
 * Errors that map to an HTTP answer. The gateway turns them into the spec's bodies in one place.
 * `detail` is the client-facing text.
 */
export class HttpError extends Error {
  override readonly name: string = 'HttpError';
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(detail);
  }
}

export class BadRequestError extends HttpError {
  override readonly name = 'BadRequestError';
  constructor(detail: string) {
    super(400, detail);
  }
}

export class UnauthorizedError extends HttpError {
  override readonly name = 'UnauthorizedError';
  constructor(detail: string) {
    super(401, detail);
  }
}

export class ForbiddenError extends HttpError {
  override readonly name = 'ForbiddenError';
  constructor(detail: string) {
    super(403, detail);
  }
}

export class NotFoundError extends HttpError {
  override readonly name = 'NotFoundError';
  constructor(detail: string) {
    super(404, detail);
  }
}

/** The JSON 413 for too many rows (the plain-text 413 for bytes is answered by the body reader). */
export class BatchTooLargeError extends HttpError {
  override readonly name = 'BatchTooLargeError';
  constructor(
    readonly rows: number,
    readonly max: number,
  ) {
    super(413, `Batch too large (${rows} > ${max}). Page your upload.`);
  }
}

export class RateLimitedError extends HttpError {
  override readonly name = 'RateLimitedError';
  constructor(readonly retryAfterSeconds: number) {
    const s = Math.max(1, Math.ceil(retryAfterSeconds));
    super(429, `Rate limit exceeded, try again in about ${s} seconds`, { 'Retry-After': String(s) });
  }
}

/** The read side did not catch up in time (DESIGN "Answers that need the read side"). */
export class NotCaughtUpError extends HttpError {
  override readonly name = 'NotCaughtUpError';
  constructor(retryAfterSeconds: number) {
    super(503, 'The projection is behind; retry shortly.', { 'Retry-After': String(retryAfterSeconds) });
  }
}
