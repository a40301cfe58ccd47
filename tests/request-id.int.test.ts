// Issue 16 item 6: the X-Request-Id of an ingest request travels in the Kafka record headers of every
// record the request appends, and the projector names it for that record: at debug when it applies
// the chunk, at warn when the record is dead-lettered (and the holdfast.dlq record carries it too).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REQUEST_ID_HEADER, topicName } from '@holdfast/kafka';
import type { Logger } from '@holdfast/platform';
import { ProjectorMetrics, startProjector, type RunningProjector } from '@holdfast/projections';
import { createMetricsRegistry } from '@holdfast/platform';
import { createTestEnv, type TestEnv, until } from '@holdfast/testing';
import {
  call,
  newAccount,
  orderRow,
  startGateway,
  type AccountFixture,
  type TestGateway,
} from '@holdfast/testing/services';
import { DEFAULT_READ_MODEL_SCHEMA } from '@holdfast/read-models';

interface Line {
  level: string;
  event: string;
  ctx: Record<string, unknown>;
}

/** A logger that keeps every line (the projector's output, read by the test). */
function capturingLogger(lines: Line[]): Logger {
  const at =
    (level: string) =>
    (event: string, ctx: Record<string, unknown> = {}) =>
      void lines.push({ level, event, ctx });
  const logger: Logger = {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: () => logger,
  };
  return logger;
}

let t: TestEnv;
let gw: TestGateway;
let acc: AccountFixture;
let projector: RunningProjector;
const lines: Line[] = [];

beforeAll(async () => {
  t = await createTestEnv('request-id');
  gw = await startGateway(t);
  acc = await newAccount(t);
  projector = await startProjector(
    { topicPrefix: t.topicPrefix, readSchema: DEFAULT_READ_MODEL_SCHEMA, sessionTimeoutMs: 6000 },
    {
      pool: t.pool,
      kafka: t.kafka,
      codec: t.codec,
      logger: capturingLogger(lines),
      metrics: new ProjectorMetrics(createMetricsRegistry('request-id-test')),
    },
  );
});

afterAll(async () => {
  await projector?.stop();
  await gw?.close();
  await t?.close();
});

/** Every record of `topic` keyed by `key`, with its headers as text, until `enough` of them. */
async function recordsOf(topic: Parameters<typeof topicName>[1], key: string, enough: number) {
  const consumer = t.verifier.consumer({
    groupId: `${t.topicPrefix}reader-${randomUUID()}`,
    maxWaitTimeInMs: 100,
  });
  const seen: { offset: string; headers: Record<string, string> }[] = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topic: topicName(t.topicPrefix, topic), fromBeginning: true });
    await consumer.run({
      eachMessage: ({ message }) => {
        if (message.key?.toString() !== key) return Promise.resolve();
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(message.headers ?? {})) headers[k] = String(v);
        seen.push({ offset: message.offset, headers });
        return Promise.resolve();
      },
    });
    await until(
      () => Promise.resolve(seen.length),
      (n) => n >= enough,
      30_000,
    );
    return seen;
  } finally {
    await consumer.disconnect();
  }
}

describe('X-Request-Id from the gateway to the projector', () => {
  it('is carried in the headers of every record the request appends and logged for a dead letter', async () => {
    // A constraint the projector cannot meet for one order: that record becomes a dead letter.
    await t.pool.query(
      `alter table read_models.orders add constraint request_id_test_small check (order_amount < 1000)`,
    );
    const requestId = `req-${randomUUID()}`;
    const r = await call(gw.url, 'POST', '/ingest/orders', {
      key: acc.key,
      headers: { 'x-request-id': requestId },
      body: {
        orders: [
          orderRow({ order_id: 'ok-1', customer_id: 'c-1', order_amount: 20 }),
          orderRow({ order_id: 'too-big', customer_id: 'c-2', order_amount: 5000 }),
        ],
      },
    });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-request-id')).toBe(requestId);

    // The two orders on holdfast.commerce; the batch record on holdfast.ingest-batches.
    const commerce = await recordsOf('holdfast.commerce', acc.accountId, 2);
    expect(commerce.map((c) => c.headers[REQUEST_ID_HEADER])).toEqual(Array(commerce.length).fill(requestId));
    const batches = await recordsOf('holdfast.ingest-batches', acc.accountId, 1);
    expect(batches[0]!.headers[REQUEST_ID_HEADER]).toBe(requestId);

    // The projector: the dead letter names the request, the applied chunk too (at debug).
    const dead = await until(
      () => Promise.resolve(lines.filter((l) => l.event === 'record_dead_lettered')),
      (d) => d.length >= 1,
      30_000,
    );
    expect(dead[0]).toMatchObject({ level: 'warn', ctx: { projection: 'commerce', request_id: requestId } });
    const applied = lines.filter((l) => l.event === 'chunk_applied' && l.level === 'debug');
    expect(applied.some((l) => (l.ctx.request_ids as string[]).includes(requestId))).toBe(true);

    // The dead-letter row keeps it (holdfast dlq list shows it).
    const rows = await t.pool.query<{ request_id: string | null }>(
      `select request_id from read_models.dead_letters where account_id = $1`,
      [acc.accountId],
    );
    expect(rows.rows).toEqual([{ request_id: requestId }]);

    // The holdfast.dlq record carries it too (keyed by the account, as the dead record was).
    const dlq = await recordsOf('holdfast.dlq', acc.accountId, 1);
    expect(dlq[0]!.headers[REQUEST_ID_HEADER]).toBe(requestId);
  });

  it('carries the id the gateway made up when the client sent none', async () => {
    const other = await newAccount(t);
    const r = await call(gw.url, 'POST', '/ingest/orders', {
      key: other.key,
      body: { orders: [orderRow({ order_id: 'x-1', customer_id: 'c-9', order_amount: 5 })] },
    });
    expect(r.status).toBe(200);
    const made = r.headers.get('x-request-id');
    expect(made).toMatch(/^[0-9a-f-]{36}$/);
    const commerce = await recordsOf('holdfast.commerce', other.accountId, 1);
    expect(commerce.map((c) => c.headers[REQUEST_ID_HEADER])).toEqual(Array(commerce.length).fill(made));
  });
});
