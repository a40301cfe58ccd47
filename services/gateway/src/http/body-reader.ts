import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import { scanJsonText } from '@holdfast/domain';
import { bodyLease } from './body-budget.js';
import { ValidationFailedError } from './validation-failed.js';

/** The body went over its byte limit: answered with the spec's plain-text 413. */
export class PayloadTooLargeError extends Error {
  override readonly name = 'PayloadTooLargeError';
  constructor(readonly limit: number) {
    super(`request body over ${limit} bytes`);
  }
}

/** The client went away before its body was complete: there is nobody to answer. */
export class ClientAbortedError extends Error {
  override readonly name = 'ClientAbortedError';
}

/** The exact body of the byte-limit 413 (spec "Errors"). */
export const PAYLOAD_TOO_LARGE_TEXT = 'payload too large';

/**
 * Reads a request body into memory, counting bytes as they stream in. The limit is decided before
 * anything is parsed: a Content-Length over the limit is refused at once, and a streamed (chunked)
 * body is refused as soon as one byte more than the limit has arrived. After a refusal this stops
 * listening; the error handler answers and then drains the rest (`drainAfterEarlyAnswer`).
 *
 * Memory: the bytes are taken from the gateway's body budget first (503 when it is spent, see
 * `BodyBudget`). A declared Content-Length is read straight into one buffer of that size, so a
 * 32 MiB body is held once, not as chunks plus their concatenation; only a chunked body (length
 * unknown) is gathered in chunks and joined once at the end.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const header = req.headers['content-length'];
  const declared = header === undefined ? NaN : Number(header);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(new PayloadTooLargeError(limit));
  const lease = bodyLease(req);
  const known = Number.isInteger(declared) && declared >= 0;
  try {
    if (known) lease.take(declared);
  } catch (err) {
    return Promise.reject(err instanceof Error ? err : new Error(String(err)));
  }
  return new Promise<Buffer>((resolve, reject) => {
    const whole = known ? Buffer.allocUnsafe(declared) : null;
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const fail = (err: Error) => {
      cleanup();
      req.pause();
      chunks.length = 0;
      reject(err);
    };
    const onData = (chunk: Buffer) => {
      if (size + chunk.length > limit || (whole !== null && size + chunk.length > whole.length)) {
        fail(new PayloadTooLargeError(limit));
        return;
      }
      if (whole !== null) chunk.copy(whole, size);
      else {
        try {
          lease.take(chunk.length);
        } catch (err) {
          fail(err as Error);
          return;
        }
        chunks.push(chunk);
      }
      size += chunk.length;
    };
    const onEnd = () => {
      cleanup();
      resolve(whole !== null ? whole.subarray(0, size) : Buffer.concat(chunks, size));
    };
    const onError = (err: Error) => {
      cleanup();
      reject(new ClientAbortedError(err.message));
    };
    const onClose = () => {
      if (req.complete) return;
      cleanup();
      reject(new ClientAbortedError('client closed the connection mid-body'));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

/**
 * Discards what is left of a request body after an early answer (a 413, an authentication failure),
 * so the client reads our answer instead of a connection reset. Bounded: a client that keeps
 * sending past `maxBytes` or `maxMs` is disconnected.
 */
export function drainAfterEarlyAnswer(
  req: IncomingMessage,
  { maxBytes = 256 * 1024 * 1024, maxMs = 30_000 } = {},
): void {
  if (req.complete || req.destroyed) return;
  let drained = 0;
  const timer = setTimeout(() => req.socket.destroy(), maxMs);
  timer.unref();
  const stop = () => clearTimeout(timer);
  req.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > maxBytes) {
      stop();
      req.socket.destroy();
    }
  });
  req.once('end', stop);
  req.once('close', stop);
  req.resume();
}

/**
 * Parses a JSON body. An empty body is `undefined` (the validators report the body as missing). Before
 * JSON.parse, the bytes must be UTF-8 (RFC 8259; invalid bytes are not silently replaced by U+FFFD)
 * and the text must pass `scanJsonText` (nesting at most 32 levels, no `\u0000`, no unpaired surrogate
 * escapes): each is a 422 at `['body', <byte position>]`. Text that is not JSON is a 422 `json_invalid`
 * entry at `['body', <position>]`, as FastAPI answers it. Duplicate keys: the last one wins (as
 * JSON.parse and Python's json do); `__proto__` is an ordinary own key (JSON.parse never touches a
 * prototype).
 */
export function parseJsonBody(body: Buffer): unknown {
  if (body.length === 0) return undefined;
  if (!isUtf8(body))
    throw new ValidationFailedError([
      {
        type: 'json_invalid',
        loc: ['body', 0],
        msg: 'JSON decode error',
        ctx: { error: 'Body is not valid UTF-8' },
      },
    ]);
  const unstorable = scanJsonText(body);
  if (unstorable !== null) throw new ValidationFailedError([unstorable]);
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch (err) {
    // V8 quotes the start of the text in some messages ("ann@example.com" is not valid JSON): the
    // answer must not echo what was sent, so the quoted part is cut.
    const message = (err as Error).message.replace(/, "[\s\S]*" is not valid JSON$/, ' (not valid JSON)');
    const position = Number(/position (\d+)/.exec(message)?.[1] ?? 0);
    throw new ValidationFailedError([
      { type: 'json_invalid', loc: ['body', position], msg: 'JSON decode error', ctx: { error: message } },
    ]);
  }
}
