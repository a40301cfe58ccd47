import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerConsumerLag, TransactionalAppender, topicName } from '@holdfast/kafka';
import { createMetricsRegistry, Readiness, silentLogger, startOpsServer } from '@holdfast/platform';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import { listDeadLetters, redriveDeadLetters } from '../../src/dlq/dead-letter-store.js';
import { metadata, orderRow, orderUpserted } from '@holdfast/testing/events';
import { until } from '@holdfast/testing';
import { ProjectorMetrics } from '../../src/runtime/metrics.js';
import { startProjector, type RunningProjector } from '../../src/runtime/start-projector.js';
import { DEFAULT_READ_MODEL_SCHEMA } from '@holdfast/read-models';

let t: TestEnv;
let appender: TransactionalAppender;
let projector: RunningProjector;
const registry = createMetricsRegistry('projector-test');

beforeAll(async () => {
  t = await createTestEnv('projectordlq');
  appender = await TransactionalAppender.create(t.kafka, { name: `${t.topicPrefix}dlqtest`, size: 1 });
  projector = await startProjector(
    { topicPrefix: t.topicPrefix, readSchema: DEFAULT_READ_MODEL_SCHEMA, sessionTimeoutMs: 6000 },
    {
      pool: t.pool,
      kafka: t.kafka,
      codec: t.codec,
      logger: silentLogger,
      metrics: new ProjectorMetrics(registry),
    },
  );
});
afterAll(async () => {
  await projector?.stop();
  await appender?.close();
  await t?.close();
});

const count = (sql: string, params: unknown[] = []) =>
  t.pool.query<{ n: number }>(sql, params).then((r) => r.rows[0]!.n);

describe('the projector on the real stack', () => {
  it('dead-letters poison records with their reason, keeps going, and re-drives them after a fix', async () => {
    const a = randomUUID();
    const topic = topicName(t.topicPrefix, 'holdfast.commerce');
    const order = (id: string, refunded: number | null = null) => ({
      topic,
      key: a,
      value: t.codec.encode(
        'OrderUpserted',
        orderUpserted(metadata(a), orderRow({ order_id: id, refunded_amount: refunded })),
      ),
    });
    const unknownSchema = Buffer.concat([Buffer.from([0, 0x7f, 0xff, 0xff, 0x00]), Buffer.from('body')]);
    await appender.append([
      order('o-1'),
      { topic, key: a, value: Buffer.from('not avro at all') },
      order('o-2'),
      { topic, key: a, value: unknownSchema },
      order('o-bad', -5), // violates orders_refunded_not_negative
      order('o-3'),
    ]);
    await until(
      'valid orders',
      () => count(`select count(*)::int as n from read_models.orders where account_id = $1`, [a]),
      (n) => n === 3,
    );
    const dead = await until(
      'dead letters',
      () => listDeadLetters(t.pool, DEFAULT_READ_MODEL_SCHEMA),
      (d) => d.length === 3,
    );
    expect(dead.map((d) => [d.projection, d.accountId, d.reason.replace(/:.*/s, '')])).toEqual([
      ['commerce', a, 'undecodable'],
      ['commerce', a, 'undecodable'],
      ['commerce', a, 'sqlstate 23514'],
    ]);
    expect(dead[2]!.reason).toContain('orders_refunded_not_negative');

    // The same letters went to the holdfast.dlq topic.
    const consumer = t.verifier.consumer({ groupId: `${t.topicPrefix}dlq-reader` });
    await consumer.connect();
    await consumer.subscribe({ topic: topicName(t.topicPrefix, 'holdfast.dlq'), fromBeginning: true });
    const seen: string[] = [];
    await consumer.run({
      eachMessage: async ({ message }) => {
        const e = await t.codec.decode(message.value!);
        if (e.type === 'DeadLettered')
          seen.push(`${e.value.projection}:${e.value.partition}:${e.value.offset}`);
      },
    });
    await until(
      'DLQ topic records',
      () => Promise.resolve(seen.length),
      (n) => n >= 3,
    );
    await consumer.disconnect();
    expect(seen.sort()).toEqual(dead.map((d) => d.id).sort());

    // The operator fixes the cause of the constraint failure, then re-drives that letter.
    await t.pool.query(`alter table read_models.orders drop constraint orders_refunded_not_negative`);
    const { redriven } = await redriveDeadLetters(t.pool, appender, {
      schema: DEFAULT_READ_MODEL_SCHEMA,
      topicPrefix: t.topicPrefix,
      ids: [dead[2]!.id],
    });
    expect(redriven).toEqual([dead[2]!.id]);
    await until(
      're-driven order',
      () =>
        count(
          `select count(*)::int as n from read_models.orders where account_id = $1 and order_id = 'o-bad'`,
          [a],
        ),
      (n) => n === 1,
    );
    expect(await listDeadLetters(t.pool, DEFAULT_READ_MODEL_SCHEMA, { status: 'redriven' })).toMatchObject([
      { id: dead[2]!.id, status: 'redriven' },
    ]);
    expect(await listDeadLetters(t.pool, DEFAULT_READ_MODEL_SCHEMA)).toHaveLength(2);
  });

  it('exposes projection lag per partition on /metrics, also as the shared per-group lag gauge', async () => {
    registerConsumerLag(registry, [projector.lag]);
    const http = await startOpsServer({ port: 0, host: '127.0.0.1', registry, readiness: new Readiness() });
    try {
      const body = await until(
        'lag metric',
        () => fetch(`http://127.0.0.1:${http.port}/metrics`).then((r) => r.text()),
        (b) =>
          b.includes(
            `holdfast_projector_lag_records{topic="${t.topicPrefix}holdfast.commerce",partition="0"`,
          ),
      );
      expect(body).toMatch(
        /holdfast_projector_records_total\{projection="commerce",outcome="applied"[^}]*\} \d+/,
      );
      expect(body).toMatch(
        /holdfast_projector_records_total\{projection="commerce",outcome="dead_lettered"[^}]*\} 3/,
      );
      expect(body).toContain(
        `holdfast_consumer_lag_records{group="${projector.groupId}",topic="${t.topicPrefix}holdfast.commerce",partition="0"`,
      );
    } finally {
      await http.close();
    }
  });

  // A table created outside the read-model DDL gets no analyst grant: without its row-level security
  // policy it would show every account (grants and policies: tests/least-privilege.int.test.ts).
  it('lets holdfast_analyst read the read models, but not tables created outside their DDL, not dead letters, and write nothing', async () => {
    await t.pool.query(`create table read_models.analyst_probe (account_id uuid)`);
    const { rows } = await t.pool.query(`
      select has_schema_privilege('holdfast_analyst', 'read_models', 'usage') as usage,
             has_table_privilege('holdfast_analyst', 'read_models.orders', 'select') as orders,
             has_table_privilege('holdfast_analyst', 'read_models.customers', 'select') as customers,
             has_table_privilege('holdfast_analyst', 'read_models.analyst_probe', 'select') as later,
             has_table_privilege('holdfast_analyst', 'read_models.dead_letters', 'select') as dead_letters,
             has_table_privilege('holdfast_analyst', 'read_models.orders', 'insert, update, delete') as writes`);
    await t.pool.query(`drop table read_models.analyst_probe`);
    expect(rows[0]).toEqual({
      usage: true,
      orders: true,
      customers: true,
      later: false,
      dead_letters: false,
      writes: false,
    });
  });
});
