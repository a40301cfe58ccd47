// The projector during a registry outage: a valid record whose schema id it has not cached waits
// (the consumer retries and reports not ready), is applied once the registry is back, and is never
// dead-lettered.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventCodec } from '@holdfast/contracts';
import { TransactionalAppender, topicName } from '@holdfast/kafka';
import { silentLogger } from '@holdfast/platform';
import {
  createTestEnv,
  registerUnseenSchema,
  TcpProxy,
  withUnseenSchema,
  type TestEnv,
} from '@holdfast/testing';
import { metadata, orderRow, orderUpserted } from '@holdfast/testing/events';
import { until } from '@holdfast/testing';
import { startProjector, type RunningProjector } from '../../src/runtime/start-projector.js';
import { DEFAULT_READ_MODEL_SCHEMA } from '@holdfast/read-models';

let t: TestEnv;
let proxy: TcpProxy;
let appender: TransactionalAppender;
let projector: RunningProjector;

beforeAll(async () => {
  t = await createTestEnv('projregistry');
  const real = new URL(process.env.SCHEMA_REGISTRY_URL!);
  proxy = await TcpProxy.start(real.hostname, Number(real.port));
  const through = new URL(process.env.SCHEMA_REGISTRY_URL!);
  through.port = String(proxy.port);
  const codec = await EventCodec.connect(through.toString().replace(/\/$/, ''));
  appender = await TransactionalAppender.create(t.kafka, { name: `${t.topicPrefix}regtest`, size: 1 });
  projector = await startProjector(
    {
      topicPrefix: t.topicPrefix,
      readSchema: DEFAULT_READ_MODEL_SCHEMA,
      sessionTimeoutMs: 6000,
      projections: ['commerce'],
    },
    { pool: t.pool, kafka: t.kafka, codec, logger: silentLogger },
  );
});
afterAll(async () => {
  await projector?.stop();
  await appender?.close();
  await proxy?.close();
  await t?.close();
});

const count = (sql: string, params: unknown[] = []) =>
  t.pool.query<{ n: number }>(sql, params).then((r) => r.rows[0]!.n);

describe('the projector while the registry is away', () => {
  it('retries a valid record with an unseen schema id, stays up and not ready, applies it once the registry is back', async () => {
    await until(
      'consumer joined',
      () =>
        Promise.resolve(projector.health.check(60_000)).then(
          () => true,
          () => false,
        ),
      (ok) => ok,
    );
    const a = randomUUID();
    const topic = topicName(t.topicPrefix, 'holdfast.commerce');
    const id = await registerUnseenSchema(process.env.SCHEMA_REGISTRY_URL!, 'OrderUpserted', t.topicPrefix);
    const encode = (orderId: string) =>
      t.codec.encode('OrderUpserted', orderUpserted(metadata(a), orderRow({ order_id: orderId })));
    proxy.cut();
    await appender.append([
      { topic, key: a, value: withUnseenSchema(encode('o-unseen'), id) },
      { topic, key: a, value: encode('o-known') },
    ]);
    // The chunk is retried, not skipped: nothing applied, nothing dead-lettered, not ready.
    const reason = await until(
      'consumer retrying',
      () =>
        Promise.resolve()
          .then(() => projector.health.check(60_000))
          .then(
            () => '',
            (err: Error) => err.message,
          ),
      (m) => m.includes('retrying'),
    );
    expect(reason).toContain('SchemaRegistryUnavailableError');
    const ordersOf = () =>
      count(`select count(*)::int as n from read_models.orders where account_id = $1`, [a]);
    expect(await ordersOf()).toBe(0);
    expect(await count(`select count(*)::int as n from read_models.dead_letters`)).toBe(0);

    proxy.forward();
    await until('both orders', ordersOf, (n) => n === 2);
    expect(await count(`select count(*)::int as n from read_models.dead_letters`)).toBe(0);
    expect(() => projector.health.check(60_000)).not.toThrow();
  }, 90_000);
});
