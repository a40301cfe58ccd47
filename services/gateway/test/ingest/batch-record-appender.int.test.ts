import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  IdempotentBatchAppender,
  TransactionalAppender,
  type Appender,
  type OutgoingRecord,
  type SinglePartitionAppender,
} from '@holdfast/kafka';
import type { RunningProjector } from '@holdfast/projections';
import { createTestEnv, type TestEnv, until } from '@holdfast/testing';
import { call, newAccount, orderRow, type AccountFixture } from '@holdfast/testing/services';
import { ensureReadModels, runProjector } from '@holdfast/testing/services';
import { startGateway, type TestGateway } from '@holdfast/testing/services';

/** Counts the calls that reach a real appender (the records still go to Kafka). */
function counting<A extends Appender | SinglePartitionAppender>(inner: A): A & { calls: number[] } {
  const calls: number[] = [];
  return Object.assign(
    {
      append: (records: readonly OutgoingRecord[]) => {
        calls.push(records.length);
        return inner.append(records);
      },
      close: () => inner.close(),
    },
    { calls },
  ) as A & { calls: number[] };
}

let t: TestEnv;
let projector: RunningProjector;
let web: TestGateway;
let a: AccountFixture;
let tx: TransactionalAppender & { calls: number[] };
let single: IdempotentBatchAppender & { calls: number[] };

beforeAll(async () => {
  t = await createTestEnv('gw-record-appender');
  await ensureReadModels(t);
  projector = await runProjector(t);
  tx = counting(await TransactionalAppender.create(t.kafka, { name: `${t.topicPrefix}gw`, size: 2 }));
  single = counting(await IdempotentBatchAppender.create(t.kafka, { size: 2 }));
  web = await startGateway(t, { appender: tx, pixelAppender: single });
  a = await newAccount(t);
});

afterAll(async () => {
  await web?.close();
  await tx?.close();
  await single?.close();
  await projector?.stop();
  await t?.close();
});

describe('a call that writes nothing but its batch record', () => {
  it('given a rejected call and a dry run, when recorded, then one idempotent produce each and no Kafka transaction, and both are listed by GET /ingest/batches', async () => {
    const send = (path: string, body: unknown, id: string) =>
      call(web.url, 'POST', path, { key: a.key, body, headers: { 'x-request-id': id } });
    expect((await send('/ingest/orders', { orders: [] }, 'r-empty')).status).toBe(400);
    expect((await send('/ingest/orders', { orders: [{ order_id: 1 }] }, 'r-422')).status).toBe(422);
    expect((await send('/ingest/orders?dry_run=true', { orders: [orderRow()] }, 'r-dry')).status).toBe(200);
    expect(tx.calls).toEqual([]);
    expect(single.calls).toEqual([1, 1, 1]);

    // A real call with rows is still one transaction: its rows and its record, all or none.
    expect((await send('/ingest/orders', { orders: [orderRow({ order_id: 'R1' })] }, 'r-real')).status).toBe(
      200,
    );
    expect(tx.calls).toEqual([2]);

    const listed = await until(
      async () =>
        (
          (await call(web.url, 'GET', '/ingest/batches', { key: a.key })).json as {
            batches: { request_id: string; status: string; http_status: number }[];
          }
        ).batches,
      (l) => l.length === 4,
    );
    expect(Object.fromEntries(listed.map((b) => [b.request_id, [b.status, b.http_status]]))).toEqual({
      'r-empty': ['rejected', 400],
      'r-422': ['rejected', 422],
      'r-dry': ['accepted', 200],
      'r-real': ['accepted', 200],
    });
  });
});
