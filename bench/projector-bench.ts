/**
 * Projector throughput against a raw COPY, on this machine: one account's backfill of N orders (the
 * design's worst case: one account = one partition = one projector), each order resolving and
 * upserting its customer. Prints rows/s for
 *  - end-to-end: Kafka → decode → identity resolution → upserts + checkpoint (startProjector);
 *  - apply only: the same chunks handed to the runner without Kafka;
 *  - COPY: the resulting order rows copied into an identical, empty orders table.
 * Run: `npm run bench -- project --events N` (bench/project.ts).
 */
import { randomUUID } from 'node:crypto';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import { EventCodec } from '@holdfast/contracts';
import { createPool, inTransaction } from '@holdfast/postgres';
import {
  TransactionalAppender,
  createKafka,
  ensureTopics,
  topicName,
  type ConsumedRecord,
} from '@holdfast/kafka';
import { silentLogger } from '@holdfast/platform';
import { wireCommerce } from '../packages/projections/src/projections/commerce/commerce.projection.js';
import { ProjectionRunner } from '../packages/projections/src/runtime/projection-runner.js';
import { startProjector } from '../packages/projections/src/runtime/start-projector.js';
import { DEFAULT_READ_MODEL_SCHEMA, ensureReadModelSchema } from '@holdfast/read-models';
import { metadata, orderRow, orderUpserted } from '@holdfast/testing/events';
import { benchStack } from './projector-bench-stack.js';

export interface ProjectorBenchResult {
  readonly orders: number;
  readonly customers: number;
  readonly endToEndRowsPerSec: number;
  readonly applyOnlyRowsPerSec: number;
  readonly copyRowsPerSec: number;
}

const ORDER_COLUMNS = `account_id, order_id, customer_id, external_customer_id, order_date, order_amount, product_name,
  email, phone, customer_name, source, order_channel, currency, shipping_city, shipping_state, shipping_zip,
  refunded_amount, discount_total, discount_pct, discount_codes, cancelled_at, first_seen_at, updated_at`;

export async function runProjectorBench(
  n = 200_000,
  log: (line: string) => void = console.log,
): Promise<ProjectorBenchResult> {
  const stack = await benchStack();
  const pool = createPool(stack.databaseUrl, 'projector-bench', 4);
  const kafka = createKafka(stack.brokers, 'projector-bench', silentLogger);
  try {
    const admin = kafka.admin();
    await admin.connect();
    await ensureTopics(admin, stack.prefix, 1);
    await admin.disconnect();
    const codec = await EventCodec.connect(stack.registryUrl);
    const account = randomUUID();
    const customers = Math.max(1, Math.floor(n / 10));
    const values = Array.from({ length: n }, (_, i) =>
      codec.encode(
        'OrderUpserted',
        orderUpserted(
          metadata(account, new Date(Date.UTC(2025, 0, 1) + i).toISOString()),
          orderRow({
            order_id: `o-${i}`,
            customer_id: `c-${i % customers}`,
            email: `c${i % customers}@example.com`,
            phone: i % 3 === 0 ? `+1512${String(5_000_000 + (i % customers))}` : null,
            customer_name: `Customer ${i % customers}`,
            order_amount: (i % 20_000) / 100,
            order_date: new Date(Date.UTC(2023, 0, 1) + (i % 700) * 86_400_000).toISOString(),
            product_name: `Product ${i % 97}`,
            source: 'organic',
            refunded_amount: i % 10 === 0 ? 1.5 : null,
            discount_codes: i % 20 === 0 ? ['SAVE10'] : null,
          }),
        ),
      ),
    );
    log(`projector bench: ${n} orders of one account, ${customers} customers, chunks of 5,000`);

    // Apply only: the runner without Kafka, into its own schema.
    await ensureReadModelSchema(pool, 'bench_apply');
    const commerce = wireCommerce();
    const runner = new ProjectionRunner(
      commerce.projection,
      {
        pool,
        codec,
        schema: 'bench_apply',
        logger: silentLogger,
        publisher: { publish: () => Promise.resolve() },
      },
      { lookahead: commerce.lookahead },
    );
    let t0 = performance.now();
    const chunkAt = (i: number) =>
      values.slice(i, i + 5000).map((value, k): ConsumedRecord => ({
        topic: 'bench',
        partition: 0,
        offset: String(i + k),
        key: null,
        value,
        timestamp: '0',
      }));
    for (let i = 0; i < n; i += 5000) {
      // As the consumer hands chunks over: with the next one as `upcoming`, prepared meanwhile.
      const upcoming = i + 5000 < n ? chunkAt(i + 5000) : undefined;
      await runner.handle({ topic: 'bench', partition: 0, records: chunkAt(i), upcoming });
    }
    const applyOnly = n / ((performance.now() - t0) / 1000);
    log(`  apply only (decode + resolve + upsert + checkpoint): ${Math.round(applyOnly)} rows/s`);

    // End to end through Kafka.
    const appender = await TransactionalAppender.create(kafka, { name: `${stack.prefix}bench`, size: 1 });
    const topic = topicName(stack.prefix, 'holdfast.commerce');
    for (let i = 0; i < n; i += 5000)
      await appender.append(values.slice(i, i + 5000).map((value) => ({ topic, key: account, value })));
    await appender.close();
    const projector = await startProjector(
      {
        topicPrefix: stack.prefix,
        readSchema: DEFAULT_READ_MODEL_SCHEMA,
        projections: ['commerce'],
        checkpointWatchMs: 0,
      },
      { pool, kafka, codec, logger: silentLogger, publisher: { publish: () => Promise.resolve() } },
    );
    let first = 0;
    t0 = performance.now();
    for (;;) {
      const { rows } = await pool.query<{ n: number }>(`select count(*)::int as n from read_models.orders`);
      if (rows[0]!.n > 0 && !first) first = performance.now();
      if (rows[0]!.n >= n) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const done = performance.now();
    await projector.stop();
    // From the first committed chunk: the consumer group join (seconds) is not throughput.
    const endToEnd = n / ((done - first) / 1000 + 5000 / applyOnly);
    log(
      `  end to end (Kafka → read models): ${Math.round(endToEnd)} rows/s (${((done - t0) / 1000).toFixed(1)} s incl. group join)`,
    );

    // Raw COPY of the same order rows into an identical empty table.
    await ensureReadModelSchema(pool, 'bench_copy');
    const client = await pool.connect();
    try {
      const chunks: Buffer[] = [];
      await pipeline(
        client.query(copyTo(`copy (select ${ORDER_COLUMNS} from read_models.orders) to stdout`)),
        new Writable({ write: (c: Buffer, _e, cb) => void (chunks.push(c), cb()) }),
      );
      t0 = performance.now();
      await inTransaction(client, () =>
        pipeline(
          Readable.from(chunks),
          client.query(copyFrom(`copy bench_copy.orders (${ORDER_COLUMNS}) from stdin`)),
        ),
      );
    } finally {
      client.release();
    }
    const copy = n / ((performance.now() - t0) / 1000);
    log(`  raw COPY into read_models.orders (same table, same indexes): ${Math.round(copy)} rows/s`);
    const { rows } = await pool.query<{ n: number }>(`select count(*)::int as n from read_models.customers`);
    return {
      orders: n,
      customers: rows[0]!.n,
      endToEndRowsPerSec: Math.round(endToEnd),
      applyOnlyRowsPerSec: Math.round(applyOnly),
      copyRowsPerSec: Math.round(copy),
    };
  } finally {
    await pool.end();
    await stack.drop();
    const admin = kafka.admin();
    await admin.connect();
    const topics = (await admin.listTopics()).filter((t) => t.startsWith(stack.prefix));
    await admin.deleteTopics(topics).catch(() => {});
    await admin.disconnect();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await runProjectorBench(Number(process.argv[2] ?? 200_000));
  console.log(JSON.stringify(result));
  process.exit(0);
}
