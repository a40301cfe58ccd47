// The projector as a real process, SIGKILLed several times while it folds a stream of ~110,000
// records, must end with every row exactly once and every merge rule intact: an order re-posted
// twice keeps the newest fields but the largest refund, whatever chunk the kill interrupted.
// A quarter of the stream (28,000 records) was tried to save time: on a quiet machine the projector
// folded all of it before the third kill, so the kills no longer landed mid-stream (the `midway`
// check caught it). HOLDFAST_KILL_RESTART_ORDERS sets the orders per account (a multiple of 40).
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TransactionalAppender, topicName, type OutgoingRecord } from '@holdfast/kafka';
import { createTestEnv, spawnTs, type TestEnv } from '@holdfast/testing';
import { DEFAULT_READ_MODEL_SCHEMA, ensureReadModelSchema } from '@holdfast/read-models';
import { customerEvent, metadata, orderRow, orderUpserted } from '@holdfast/testing/events';
import { until } from '@holdfast/testing';

const ACCOUNTS = 8;
const ORDERS = Number(process.env.HOLDFAST_KILL_RESTART_ORDERS ?? 10_000); // per account, a multiple of 40
const CUSTOMERS = ORDERS / 10; // per account: 10 orders each (at least 150: the events link to c-0..c-149)
const CHUNK = ORDERS / 2; // the projector's chunk: ~22 chunks in the stream at any size
const EVENTS = 200; // per account, over 150 dedup keys

let t: TestEnv;
let appender: TransactionalAppender;
const children: ChildProcess[] = [];

beforeAll(async () => {
  t = await createTestEnv('projkill');
  await ensureReadModelSchema(t.pool, DEFAULT_READ_MODEL_SCHEMA);
  appender = await TransactionalAppender.create(t.kafka, { name: `${t.topicPrefix}kill`, size: 2 });
});
afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  await appender?.close();
  await t?.close();
});

/** Each account's history: orders, then re-posts of every 4th (v2, refund 5) and 8th (v3, refund 3), then webhook events. */
function stream(): OutgoingRecord[][] {
  const topic = topicName(t.topicPrefix, 'holdfast.commerce');
  return Array.from({ length: ACCOUNTS }, (_, n) => {
    const a = randomUUID();
    const rec = (value: Buffer): OutgoingRecord => ({ topic, key: a, value });
    const order = (i: number, version: string, refunded: number | null, minute: number) =>
      rec(
        t.codec.encode(
          'OrderUpserted',
          orderUpserted(
            metadata(a, new Date(Date.UTC(2025, 0, 1, 0, minute)).toISOString()),
            orderRow({
              order_id: `o-${i}`,
              customer_id: `c-${i % CUSTOMERS}`,
              email: `c${i % CUSTOMERS}@a${n}.example`,
              product_name: version,
              refunded_amount: refunded,
            }),
          ),
        ),
      );
    const records: OutgoingRecord[] = [];
    for (let i = 0; i < ORDERS; i++) records.push(order(i, 'v1', null, 1));
    for (let i = 0; i < ORDERS; i += 4) records.push(order(i, 'v2', 5, 2));
    for (let i = 0; i < ORDERS; i += 8) records.push(order(i, 'v3', 3, 3));
    for (let j = 0; j < EVENTS; j++)
      records.push(
        rec(
          t.codec.encode(
            'CustomerEventReceived',
            customerEvent(metadata(a), `k-${j % 150}`, { external_id: `c-${j % 150}` }),
          ),
        ),
      );
    return records;
  });
}

async function counts() {
  const { rows } = await t.pool.query<{ orders: number; events: number }>(
    `select (select count(*)::int from read_models.orders) as orders,
            (select count(*)::int from read_models.customer_events) as events`,
  );
  return rows[0]!;
}

/** The commerce projection's checkpoints, summed over partitions. */
async function appliedOffsets(): Promise<number> {
  const { rows } = await t.pool.query<{ n: string | null }>(
    `select sum(last_offset) as n from read_models.projection_checkpoints where projection = 'commerce'`,
  );
  return Number(rows[0]!.n ?? -1);
}

function startProjector(): ChildProcess {
  const child = spawnTs('services/projector/src/main.ts', {
    ...t.env,
    HOLDFAST_READ_SCHEMA: DEFAULT_READ_MODEL_SCHEMA,
    HOLDFAST_SESSION_TIMEOUT_MS: '6000',
    HOLDFAST_PROJECTOR_CHUNK: String(CHUNK),
    PORT: '0',
  });
  children.push(child);
  return child;
}

describe('the projector process under SIGKILL', () => {
  it('applies a ~110,000-record stream exactly once across three kills', async () => {
    // Accounts interleaved in slices, appended in 5,000-record transactions like ingest batches.
    const perAccount = stream();
    const all: OutgoingRecord[] = [];
    for (let i = 0; i < perAccount[0]!.length; i += 1000)
      for (const s of perAccount) all.push(...s.slice(i, i + 1000));
    expect(all.length).toBe(ACCOUNTS * (ORDERS + ORDERS / 4 + ORDERS / 8 + EVENTS));
    for (let i = 0; i < all.length; i += 5000) await appender.append(all.slice(i, i + 5000));

    for (let k = 0; k < 3; k++) {
      // Progress is read off the checkpoints, not the order count: a life that ran long (a slow
      // poll on a busy machine) may already hold every order id, and the next would then never
      // add one although re-posts and events remain (the exactly-once proof's old wait).
      const before = await appliedOffsets();
      const child = startProjector();
      await until('progress', appliedOffsets, (n) => n > before, 90_000);
      // Land the kill inside a later chunk's transaction rather than right after a commit.
      await new Promise((r) => setTimeout(r, 100 + k * 150));
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
    }
    // The kills landed before the end of the stream: the checkpoints were still behind where the
    // last projector leaves them (a fast projector may already hold every order id by then, while
    // re-posts and events are still to come, so the order count alone cannot tell).
    const midway = await appliedOffsets();

    const last = startProjector();
    await until(
      'every record',
      counts,
      (c) => c.orders === ACCOUNTS * ORDERS && c.events === ACCOUNTS * 150,
      120_000,
    );
    await new Promise((r) => setTimeout(r, 1000));
    expect(midway).toBeLessThan(await appliedOffsets());

    const { rows } = await t.pool.query(`
      select count(*)::int as orders,
        count(distinct (account_id, order_id))::int as distinct_orders,
        count(*) filter (where product_name = 'v3')::int as v3,
        count(*) filter (where product_name = 'v2')::int as v2,
        count(*) filter (where product_name = 'v1')::int as v1,
        sum(refunded_amount)::float8 as refunded,
        count(*) filter (where refunded_amount not in (0, 5))::int as wrong_refunds,
        count(*) filter (where customer_id is null)::int as unlinked,
        (select count(*)::int from read_models.customers) as customers,
        (select count(*)::int from (select customer_id from read_models.orders group by 1 having count(*) <> 10) x) as uneven,
        (select count(*)::int from read_models.customer_events where link_method = 'provider_id' and not is_new) as events_linked
      from read_models.orders`);
    expect(rows[0]).toEqual({
      orders: ACCOUNTS * ORDERS,
      distinct_orders: ACCOUNTS * ORDERS,
      v3: ACCOUNTS * (ORDERS / 8),
      v2: ACCOUNTS * (ORDERS / 8),
      v1: (ACCOUNTS * (ORDERS * 3)) / 4,
      refunded: ACCOUNTS * (ORDERS / 4) * 5,
      wrong_refunds: 0,
      unlinked: 0,
      customers: ACCOUNTS * CUSTOMERS,
      uneven: 0,
      events_linked: ACCOUNTS * 150,
    });
    const exit = new Promise<number | null>((r) => last.once('exit', r));
    last.kill('SIGTERM');
    expect(await exit).toBe(0);
  });
});
