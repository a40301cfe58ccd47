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

// The plain statuses differ only in their code and name: one class each, made by one factory (each
// is still its own class: `instanceof NotFoundError` holds for a NotFoundError only).
function statusError<N extends string>(status: number, name: N) {
  return class extends HttpError {
    override readonly name: N = name;
    constructor(detail: string) {
      super(status, detail);
    }
  };
}

/** 400 with `{detail}`. */
export const BadRequestError = statusError(400, 'BadRequestError');
export type BadRequestError = InstanceType<typeof BadRequestError>;
/** 401 with `{detail}`. */
export const UnauthorizedError = statusError(401, 'UnauthorizedError');
export type UnauthorizedError = InstanceType<typeof UnauthorizedError>;
/** 403 with `{detail}`. */
export const ForbiddenError = statusError(403, 'ForbiddenError');
export type ForbiddenError = InstanceType<typeof ForbiddenError>;
/** 404 with `{detail}`. */
export const NotFoundError = statusError(404, 'NotFoundError');
export type NotFoundError = InstanceType<typeof NotFoundError>;

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
