import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Logger } from '@holdfast/platform';
import { errorHandler, INTERNAL_ERROR_DETAIL } from '../../src/http/error-handler.js';

const errors: Array<{ event: string; ctx: Record<string, unknown> }> = [];
const capture: Logger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: (event, ctx = {}) => void errors.push({ event, ctx }),
  child: () => capture,
};

let server: Server;
let base: string;
const TOKEN = 'v1.dW5zdWJzY3JpYmUtdG9rZW4.c2lnbmF0dXJl';

beforeAll(async () => {
  const app = express();
  app.get('/unsubscribe/:token', () => {
    throw new Error('read side unavailable');
  });
  // Fails before any route matched: only the redacted path can name it.
  app.use((req, _res, next) => {
    if (req.path.startsWith('/boom/')) throw new Error('middleware failed');
    next();
  });
  app.use(errorHandler(capture));
  server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('errorHandler, an unhandled error', () => {
  it('given a route with a token in its path, then the log line names the template, never the token', async () => {
    errors.length = 0;
    const res = await fetch(`${base}/unsubscribe/${TOKEN}?email=jane@example.com`);
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ detail: INTERNAL_ERROR_DETAIL });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({
      event: 'unhandled_error',
      ctx: { method: 'GET', route: '/unsubscribe/:token', error: 'read side unavailable' },
    });
    expect(JSON.stringify(errors)).not.toContain(TOKEN);
    expect(JSON.stringify(errors)).not.toContain('example.com');
  });

  it('given no matched route, then the log line names the redacted path', async () => {
    errors.length = 0;
    const res = await fetch(`${base}/boom/jane@example.com`);
    expect(res.status).toBe(500);
    expect(errors[0]).toMatchObject({ event: 'unhandled_error', ctx: { route: '/:redacted/:redacted' } });
    expect(JSON.stringify(errors)).not.toContain('example.com');
  });
});
