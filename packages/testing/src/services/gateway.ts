// The one way to start the gateway under test: in this process, on a free port, on the test file's
// database and topics, behind the HTTP server main.ts runs (its timeouts and its JSON answers to what
// the HTTP parser refuses). Also the fixtures and the small client the gateway's tests share.
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAccount, mintApiKey } from '@holdfast/control-plane';
import {
  IdempotentBatchAppender,
  LogPositions,
  TransactionalAppender,
  type Appender,
  type LogPositionSource,
  type SinglePartitionAppender,
} from '@holdfast/kafka';
import {
  createGateway,
  createGatewayServer,
  loadGatewayConfig,
  type Clock,
  type Gateway,
  type GatewayConfig,
} from '@holdfast/gateway';
import type { TestEnv } from '../test-env.js';
import { ensureReadModels } from './projector.js';

/** A clock tests move by hand (rate windows, sync throttle, key expiry). */
export class ManualClock implements Clock {
  constructor(private t: Date) {}
  now(): Date {
    return new Date(this.t);
  }
  advance(ms: number): void {
    this.t = new Date(this.t.getTime() + ms);
  }
  set(t: Date): void {
    this.t = new Date(t);
  }
}

export interface TestGateway {
  readonly url: string;
  /** The HTTP server, for tests that watch what reaches the gateway. */
  readonly server: Server;
  readonly gateway: Gateway;
  readonly appender: Appender;
  /** POST /pixel/collect's appender (an IdempotentBatchAppender, as main.ts gives it, unless passed). */
  readonly pixelAppender: SinglePartitionAppender;
  readonly config: GatewayConfig;
  close(): Promise<void>;
}

/**
 * Starts the real gateway (`createGateway` behind `createGatewayServer`) on a free port of 127.0.0.1.
 * Client IPs come from X-Forwarded-For (trust proxy), so each test can fail authentication from its
 * own IP.
 */
export async function startGateway(
  t: TestEnv,
  opts: {
    clock?: Clock;
    appender?: Appender;
    pixelAppender?: SinglePartitionAppender;
    config?: Partial<GatewayConfig>;
    logPositions?: LogPositionSource;
  } = {},
): Promise<TestGateway> {
  const config: GatewayConfig = { ...loadGatewayConfig(t.env), trustProxy: true, ...opts.config };
  await ensureReadModels(t);
  const own = opts.appender
    ? null
    : await TransactionalAppender.create(t.kafka, { name: `${t.topicPrefix}gw`, size: 2 });
  const appender = opts.appender ?? own!;
  const ownPixel = opts.pixelAppender ? null : await IdempotentBatchAppender.create(t.kafka, { size: 2 });
  const pixelAppender = opts.pixelAppender ?? ownPixel!;
  const ownPositions = opts.logPositions ? null : LogPositions.create(t.kafka, t.topicPrefix);
  const gateway = await createGateway(config, {
    pool: t.pool,
    appender,
    pixelAppender,
    codec: t.codec,
    logPositions: opts.logPositions ?? ownPositions!,
    clock: opts.clock,
  });
  const server = createGatewayServer(gateway.app, config).listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    gateway,
    appender,
    pixelAppender,
    config,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await gateway.close();
      await own?.close();
      await ownPixel?.close();
      await ownPositions?.close();
    },
  };
}

export interface AccountFixture {
  readonly accountId: string;
  readonly key: string;
  readonly keyId: string;
}

/** A fresh account with one ingest key (tk_test_ for a sandbox account, tk_live_ otherwise). */
export async function newAccount(
  t: TestEnv,
  { sandbox = false, name = 'Shop' } = {},
): Promise<AccountFixture> {
  const { id } = await createAccount(t.db, { name, isSandbox: sandbox });
  const k = await mintApiKey(t.db, id, sandbox ? 'ingest_test' : 'ingest_live');
  return { accountId: id, key: k.key, keyId: k.id };
}

export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are asserted field by field
  readonly json: any;
}

export interface CallOptions {
  readonly key?: string;
  readonly body?: unknown;
  readonly rawBody?: string;
  readonly headers?: Record<string, string>;
  readonly ip?: string;
}

/** A tiny HTTP client: `call(url, 'POST', '/ingest/orders', { key, body })`. */
export async function call(base: string, method: string, path: string, o: CallOptions = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...o.headers };
  if (o.key) headers.authorization = `Bearer ${o.key}`;
  if (o.ip) headers['x-forwarded-for'] = o.ip;
  let body: string | undefined = o.rawBody;
  if (o.body !== undefined) body = JSON.stringify(o.body);
  if (body !== undefined) headers['content-type'] ??= 'application/json';
  const res = await fetch(`${base}${path}`, { method, headers, body });
  const text = await res.text();
  let json: unknown = undefined;
  try {
    json = JSON.parse(text);
  } catch {
    // plain text answers (413) stay in `text`
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** An order row with every required field; override what a test is about. */
export function orderRow(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    order_id: 'A1',
    customer_id: 'C1',
    order_date: '2024-01-02T10:00:00Z',
    order_amount: 12.5,
    product_name: 'Tea',
    email: 'ann@example.com',
    ...overrides,
  };
}

/** A row of GET /ingest/batches, as the tests read it. */
export interface BatchView {
  request_id: string | null;
  [k: string]: unknown;
}

/** GET /ingest/health and GET /ingest/batches as an account, through a running gateway. */
export function readSide(gw: () => TestGateway) {
  const get = (acc: AccountFixture, path: string) => call(gw().url, 'GET', path, { key: acc.key });
  return {
    get,
    health: async (acc: AccountFixture) => (await get(acc, '/ingest/health')).json as Record<string, unknown>,
    batchesOf: async (acc: AccountFixture, query = '') =>
      ((await get(acc, `/ingest/batches${query}`)).json as { batches: BatchView[] }).batches,
  };
}
