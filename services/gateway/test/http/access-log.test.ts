import type { AddressInfo } from 'node:net';
import { request as httpRequest, type Server } from 'node:http';
import express from 'express';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Logger } from '@holdfast/platform';
import { noteMount } from '../../src/metrics.js';
import { accessLog, MAX_REQUEST_ID_LENGTH, requestIdFor, requestIdOf } from '../../src/http/access-log.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const lines: Array<{ event: string; ctx: Record<string, unknown> }> = [];
const capture: Logger = {
  debug: () => {},
  info: (event, ctx = {}) => void lines.push({ event, ctx }),
  warn: () => {},
  error: () => {},
  child: () => capture,
};

let server: Server;
let base: string;
let release: () => void = () => {};

beforeAll(async () => {
  const app = express();
  app.use(accessLog(capture));
  const ingest = express.Router();
  ingest.use(noteMount);
  ingest.use((req, res, next) => {
    if (req.get('authorization') === 'Bearer good') res.locals.principal = { accountId: 'acc-1' };
    next();
  });
  ingest.get('/orders/:orderId', (_req, res) => void res.json({ id: requestIdOf(res) }));
  ingest.post('/fail', () => {
    throw Object.assign(new Error('boom'), { status: 422 });
  });
  ingest.get('/slow', (_req, res) => {
    release = () => void res.json({});
  });
  app.use('/ingest', ingest);
  app.use((_req, res) => void res.status(404).json({ detail: 'Not Found' }));
  app.use(
    ((err, _req, res, _next) =>
      void res.status(err.status).json({ detail: 'x' })) as express.ErrorRequestHandler,
  );
  server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((r) => server.close(() => r())));
beforeEach(() => void (lines.length = 0));

/** Waits for the line of the request just made (written when its response closes). */
async function lastLine(): Promise<Record<string, unknown>> {
  for (let i = 0; i < 100 && lines.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
  expect(lines).toHaveLength(1);
  expect(lines[0]!.event).toBe('http_request');
  return lines[0]!.ctx;
}

describe('accessLog', () => {
  it('generates a request id when none is sent, echoes it and logs one line with the route template', async () => {
    const r = await fetch(`${base}/ingest/orders/ord-17?email=ann@example.com`, {
      headers: { authorization: 'Bearer good' },
    });
    const id = r.headers.get('x-request-id');
    expect(id).toMatch(UUID);
    expect(await r.json()).toEqual({ id });
    const line = await lastLine();
    expect(line).toEqual({
      method: 'GET',
      route: '/ingest/orders/:orderId',
      status: 200,
      duration_ms: expect.any(Number),
      account_id: 'acc-1',
      request_id: id,
    });
    expect(line.duration_ms).toBeGreaterThanOrEqual(0);
    // Neither the raw path nor the query (which may carry personal data) is logged.
    expect(JSON.stringify(lines)).not.toMatch(/ord-17|ann@example\.com|email/);
  });

  it('keeps a well-formed client id', async () => {
    for (const sent of ['4bf92f3577b34da6a3ce929d0e0e4736', 'checkout:web-3/req=42+x', 'a'.repeat(128)]) {
      lines.length = 0;
      const r = await fetch(`${base}/ingest/orders/1`, { headers: { 'x-request-id': sent } });
      expect(r.headers.get('x-request-id')).toBe(sent);
      expect(await lastLine()).toMatchObject({ request_id: sent, account_id: null, status: 200 });
    }
  });

  it('replaces a client id that is too long, empty or has other characters', async () => {
    const bad = [
      'a'.repeat(MAX_REQUEST_ID_LENGTH + 1),
      'two words',
      '"quoted"',
      'id;drop',
      'ann@example.com',
    ];
    for (const sent of bad) {
      lines.length = 0;
      const r = await fetch(`${base}/ingest/orders/1`, { headers: { 'x-request-id': sent } });
      const id = r.headers.get('x-request-id');
      expect(id, sent).toMatch(UUID);
      expect(await lastLine()).toMatchObject({ request_id: id });
      expect(JSON.stringify(lines)).not.toContain(sent);
    }
    expect(requestIdFor('')).toMatch(UUID);
    expect(requestIdFor('caf\u00e9')).toMatch(UUID);
    expect(requestIdFor(undefined)).toMatch(UUID);
  });

  it('logs errors and unknown paths with their status, unknown paths without their path', async () => {
    const failed = await fetch(`${base}/ingest/fail`, { method: 'POST' });
    expect(failed.status).toBe(422);
    expect(await lastLine()).toMatchObject({ method: 'POST', route: '/ingest/fail', status: 422 });

    lines.length = 0;
    const unknown = await fetch(`${base}/customer/ann@example.com`);
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('x-request-id')).toMatch(UUID);
    expect(await lastLine()).toMatchObject({ method: 'GET', route: '/:redacted/:redacted', status: 404 });
    expect(JSON.stringify(lines)).not.toContain('example.com');

    lines.length = 0;
    const token = await fetch(`${base}/unsubscribe/v1.c2VjcmV0LXRva2Vu.sig?List-Unsubscribe=One-Click`);
    expect(token.status).toBe(404);
    expect(await lastLine()).toMatchObject({ method: 'GET', route: '/unsubscribe/:token', status: 404 });
    expect(JSON.stringify(lines)).not.toContain('c2VjcmV0LXRva2Vu');
  });

  it('logs a request the client abandoned before the answer, marked aborted', async () => {
    await new Promise<void>((resolve) => {
      const req = httpRequest(`${base}/ingest/slow`);
      req.on('error', () => resolve());
      req.end();
      setTimeout(() => (req.destroy(), resolve()), 100);
    });
    const line = await lastLine();
    expect(line).toMatchObject({ route: '/ingest/slow', aborted: true });
    release();
  });
});
