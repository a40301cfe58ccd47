import { randomUUID } from 'node:crypto';
import type { Producer } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Appender, OutgoingRecord } from '@holdfast/kafka';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import {
  call,
  newAccount,
  orderRow,
  startGateway,
  type AccountFixture,
  type TestGateway,
} from '@holdfast/testing/services';
import { readTopic } from '../test-support/topic-reader.js';
import { APPEND_FAILED_DETAIL } from '../../src/ingest/ingest-route.js';

/**
 * A real transactional appender that, when armed, fails half-way through its next batch: the first
 * sendBatch (half of the records) reaches the log inside the transaction, the second throws, and the
 * transaction is aborted, as when a broker connection drops mid-batch.
 */
class HalfwayFailingAppender implements Appender {
  armed = false;
  private constructor(private readonly producer: Producer) {}

  static async create(t: TestEnv): Promise<HalfwayFailingAppender> {
    const producer = t.verifier.producer({
      transactionalId: `${t.topicPrefix}halfway-${randomUUID()}`,
      idempotent: true,
      maxInFlightRequests: 1,
    });
    await producer.connect();
    return new HalfwayFailingAppender(producer);
  }

  private static grouped(records: readonly OutgoingRecord[]) {
    const byTopic = new Map<string, { key: string; value: Buffer }[]>();
    for (const r of records)
      byTopic.set(r.topic, [...(byTopic.get(r.topic) ?? []), { key: r.key, value: r.value }]);
    return [...byTopic].map(([topic, messages]) => ({ topic, messages }));
  }

  async append(records: readonly OutgoingRecord[]): Promise<void> {
    const fail = this.armed;
    this.armed = false;
    const tx = await this.producer.transaction();
    try {
      const half = fail ? Math.ceil(records.length / 2) : records.length;
      await tx.sendBatch({ topicMessages: HalfwayFailingAppender.grouped(records.slice(0, half)) });
      if (fail) throw new Error('connection to the broker lost during the second sendBatch');
      await tx.commit();
    } catch (err) {
      await tx.abort();
      throw err;
    }
  }

  async close(): Promise<void> {
    await this.producer.disconnect();
  }
}

let t: TestEnv;
let appender: HalfwayFailingAppender;
let gw: TestGateway;
let acc: AccountFixture;

beforeAll(async () => {
  t = await createTestEnv('gw-atomic');
  appender = await HalfwayFailingAppender.create(t);
  gw = await startGateway(t, { appender });
  acc = await newAccount(t);
});

afterAll(async () => {
  await gw?.close();
  await appender?.close();
  await t?.close();
});

const post = (path: string, body: unknown, requestId: string) =>
  call(gw.url, 'POST', path, { key: acc.key, body, headers: { 'x-request-id': requestId } });

describe('one HTTP batch = one Kafka transaction', () => {
  it('an orders batch whose append fails half-way answers 500 and leaves nothing visible to read_committed consumers', async () => {
    appender.armed = true;
    const orders = Array.from({ length: 10 }, (_, i) => orderRow({ order_id: `H${i}` }));
    const failed = await post('/ingest/orders', { orders }, 'req-halfway');
    expect(failed.status).toBe(500);
    expect(failed.json).toEqual({ detail: APPEND_FAILED_DETAIL });
    // The same batch can be retried.
    expect(
      (await post('/ingest/orders', { orders: [orderRow({ order_id: 'SENTINEL' })] }, 'req-sentinel')).status,
    ).toBe(200);

    const sawSentinel = (es: readonly { type: string; value: unknown }[]) =>
      es.some(
        (e) =>
          e.type === 'OrderUpserted' &&
          (e.value as { order: { order_id: string } }).order.order_id === 'SENTINEL',
      );
    const fromHalfway = (es: readonly { type: string; value: unknown }[]) =>
      es.filter(
        (e) => (e.value as { metadata?: { request_id?: string } }).metadata?.request_id === 'req-halfway',
      );

    const committed = await readTopic(t, 'holdfast.commerce', sawSentinel);
    expect(fromHalfway(committed)).toEqual([]);
    // The first half did reach the log, inside the aborted transaction.
    const uncommitted = await readTopic(t, 'holdfast.commerce', sawSentinel, { readUncommitted: true });
    expect(fromHalfway(uncommitted).length).toBe(6);

    const batches = await readTopic(t, 'holdfast.ingest-batches', (es) =>
      es.some((e) => e.type === 'IngestBatchRecorded' && e.value.metadata.request_id === 'req-sentinel'),
    );
    expect(fromHalfway(batches).map((e) => e.value)).toMatchObject([
      { status: 'error', http_status: 500, received: 10, accepted: 0, error_codes: ['append_failed'] },
    ]);
  });

  it('a customers batch whose append fails answers 500 too', async () => {
    appender.armed = true;
    const r = await post(
      '/ingest/customers',
      { customers: [{ external_id: 'C1' }, { external_id: 'C2' }] },
      'req-c',
    );
    expect(r.status).toBe(500);
    expect(r.json).toEqual({ detail: APPEND_FAILED_DETAIL });
  });

  it('a sync whose command cannot be appended still answers 200 with its task: the task is queued with its command in the outbox (sync-outbox.int.test.ts follows it to done)', async () => {
    appender.armed = true;
    const r = await call(gw.url, 'POST', '/ingest/sync', { key: acc.key });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ queued: true, status_url: `/ingest/sync/${r.json.task_id}` });
    const tasks = await t.db
      .selectFrom('control.sync_tasks')
      .select(['id', 'status', 'reason'])
      .where('account_id', '=', acc.accountId)
      .execute();
    expect(tasks).toEqual([{ id: r.json.task_id, status: 'queued', reason: null }]);
  });
});
