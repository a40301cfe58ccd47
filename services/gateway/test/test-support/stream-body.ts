// Test support: POST a body for real, chunk by chunk, and note how much was sent when the answer came.
import http from 'node:http';

/** Resolves when the request can take more data, or has been answered. */
function writable(req: http.ClientRequest): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      req.off('drain', done);
      req.off('response', done);
      req.off('close', done);
      resolve();
    };
    req.on('drain', done);
    req.on('response', done);
    req.on('close', done);
  });
}

export interface StreamedAnswer {
  readonly status: number;
  readonly contentType: string | undefined;
  readonly text: string;
  /** Bytes written before the answer's headers arrived. */
  readonly sentBeforeAnswer: number;
}

/**
 * Streams `totalBytes` of `chunk` (chunked transfer encoding, no Content-Length, unless
 * `declaredLength` is given) and stops writing as soon as the server answers.
 */
export function streamBody(
  url: string,
  {
    key,
    totalBytes,
    chunk,
    declaredLength,
  }: { key: string; totalBytes: number; chunk: Buffer; declaredLength?: number },
): Promise<StreamedAnswer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
    };
    if (declaredLength !== undefined) headers['content-length'] = String(declaredLength);
    const req = http.request(url, { method: 'POST', headers });
    let sent = 0;
    let answered = false;
    req.on('response', (res) => {
      answered = true;
      const at = sent;
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('end', () => {
        resolve({
          status: res.statusCode ?? 0,
          contentType: res.headers['content-type'],
          text: Buffer.concat(parts).toString('utf8'),
          sentBeforeAnswer: at,
        });
        req.destroy();
      });
    });
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    void (async () => {
      while (sent < totalBytes && !answered && !req.destroyed) {
        const piece = chunk.subarray(0, Math.min(chunk.length, totalBytes - sent));
        sent += piece.length;
        if (!req.write(piece)) await writable(req);
      }
      if (!answered && !req.destroyed && declaredLength === undefined) req.end();
    })().catch(reject);
  });
}
