import type { IncomingMessage } from 'node:http';
import { ValidationFailedError } from '@holdfast/platform';

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
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(new PayloadTooLargeError(limit));
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        req.pause();
        chunks.length = 0;
        reject(new PayloadTooLargeError(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks, size));
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
 * Parses a JSON body. An empty body is `undefined` (the validators report the body as missing); text
 * that is not JSON is a 422 `json_invalid` entry at `['body', <position>]`, as FastAPI answers it.
 */
export function parseJsonBody(body: Buffer): unknown {
  if (body.length === 0) return undefined;
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch (err) {
    const message = (err as Error).message;
    const position = Number(/position (\d+)/.exec(message)?.[1] ?? 0);
    throw new ValidationFailedError([
      { type: 'json_invalid', loc: ['body', position], msg: 'JSON decode error', ctx: { error: message } },
    ]);
  }
}
