// Issue 16 item 6: optional OpenTelemetry tracing. With OTEL_EXPORTER_OTLP_ENDPOINT set, an ingest
// request's server span, its Kafka append (trace context carried in the records' traceparent header)
// and the projector's apply of those records form one trace, exported over OTLP/HTTP to a real
// receiver listening in this test: the projector's span is a child of the gateway's append span,
// itself a child of the request's span, which continues the client's traceparent.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createMetricsRegistry,
  flushTracing,
  loadTracingConfig,
  silentLogger,
  startTracing,
} from '@holdfast/platform';
import { ProjectorMetrics, startProjector, type RunningProjector } from '@holdfast/projections';
import { createTestEnv, type TestEnv, until } from '@holdfast/testing';
import { call, newAccount, orderRow, startGateway, type TestGateway } from '@holdfast/testing/services';
import { DEFAULT_READ_MODEL_SCHEMA } from '@holdfast/read-models';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: Record<string, unknown> }[];
}

let t: TestEnv;
let gw: TestGateway;
let projector: RunningProjector;
let receiver: Server;
let stopTracing: () => Promise<void>;
const spans: OtlpSpan[] = [];
const contentTypes = new Set<string>();

beforeAll(async () => {
  // The OTLP/HTTP receiver: every POST /v1/traces body (JSON) is kept.
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/v1/traces') {
        contentTypes.add(String(req.headers['content-type']));
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[];
        };
        for (const rs of body.resourceSpans) for (const ss of rs.scopeSpans) spans.push(...ss.spans);
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  receiver.listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  const { port } = receiver.address() as AddressInfo;
  stopTracing = startTracing(
    'holdfast-tracing-test',
    loadTracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}/` }),
  );
  t = await createTestEnv('tracing');
  gw = await startGateway(t);
  projector = await startProjector(
    { topicPrefix: t.topicPrefix, readSchema: DEFAULT_READ_MODEL_SCHEMA, sessionTimeoutMs: 6000 },
    {
      pool: t.pool,
      kafka: t.kafka,
      codec: t.codec,
      logger: silentLogger,
      metrics: new ProjectorMetrics(createMetricsRegistry('tracing-test')),
    },
  );
});

afterAll(async () => {
  await projector?.stop();
  await gw?.close();
  await stopTracing?.();
  await t?.close();
  receiver?.close();
});

const isCommerceApply = (s: { name: string; attributes: readonly { key: string; value: unknown }[] }) =>
  s.name === 'projector.apply' &&
  s.attributes.some(
    (a) =>
      a.key === 'holdfast.projection' && (a.value as { stringValue?: string }).stringValue === 'commerce',
  );

describe('tracing from the HTTP request to the projector', () => {
  it('makes the projector apply span a child of the gateway append, in the client trace', async () => {
    const acc = await newAccount(t);
    const traceId = randomBytes(16).toString('hex');
    const clientSpan = randomBytes(8).toString('hex');
    const r = await call(gw.url, 'POST', '/ingest/orders', {
      key: acc.key,
      headers: { traceparent: `00-${traceId}-${clientSpan}-01` },
      body: { orders: [orderRow({ order_id: 't-1', customer_id: 'c-1' }), orderRow({ order_id: 't-2' })] },
    });
    expect(r.status).toBe(200);
    await until(
      () =>
        t.pool
          .query<{ n: number }>('select count(*)::int as n from read_models.orders where account_id = $1', [
            acc.accountId,
          ])
          .then((q) => q.rows[0]!.n),
      (n) => n === 2,
      30_000,
    );
    const inTrace = await until(
      async () => {
        await flushTracing();
        return spans.filter((s) => s.traceId === traceId);
      },
      (s) => s.some(isCommerceApply),
      30_000,
    );
    const server = inTrace.find((s) => s.name === 'POST /ingest/orders')!;
    const append = inTrace.find((s) => s.name === 'kafka.append')!;
    // The batch record is applied by the ingest-batches projection too, in its own span: take the
    // commerce projection's (which one the exporter sends first is a race).
    const apply = inTrace.find(isCommerceApply)!;
    expect(server, JSON.stringify(inTrace)).toBeDefined();
    expect(server.parentSpanId).toBe(clientSpan);
    expect(server.kind).toBe(2); // SERVER
    expect(append.parentSpanId).toBe(server.spanId);
    expect(append.kind).toBe(4); // PRODUCER
    expect(apply.parentSpanId).toBe(append.spanId);
    expect(apply.kind).toBe(5); // CONSUMER
    expect(apply.attributes).toContainEqual({
      key: 'holdfast.projection',
      value: { stringValue: 'commerce' },
    });
    expect([...contentTypes]).toEqual(['application/json']);
  });
});
