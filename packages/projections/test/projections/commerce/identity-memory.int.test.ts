// The identity memory answers lookups without a query only while it is exact: these tests play the
// ways it could go stale (another process applying the same partition, a budget overflow, a chunk
// that fails) and require the same rows as the query path gives.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConsumedRecord } from '@holdfast/kafka';
import { silentLogger } from '@holdfast/platform';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import { readModelDigest } from '../../../src/replay/table-digest.js';
import { ProjectionRunner } from '../../../src/runtime/projection-runner.js';
import { ensureReadModelSchema } from '@holdfast/read-models';
import { customerRow, customerUpserted, metadata, orderRow, orderUpserted } from '@holdfast/testing/events';
import type { Given } from '../../test-support/projection-harness.js';
import { CommerceLookahead } from '../../../src/projections/commerce/commerce-lookahead.js';
import {
  CommerceKeys,
  createCommerceProjection,
} from '../../../src/projections/commerce/commerce.projection.js';
import { IdentityMemory, type MemoryBudget } from '../../../src/projections/commerce/identity-memory.js';

let t: TestEnv;
beforeAll(async () => {
  t = await createTestEnv('identitymemory');
});
afterAll(() => t.close());

const UNLIMITED: MemoryBudget = { customers: 1_000_000, orders: 1_000_000 };
const at = (i: number) => new Date(Date.UTC(2025, 0, 1) + i * 1000).toISOString();

/** One projector process: its own memory, its own runner, on `schema`. */
function processOn(schema: string, budget: MemoryBudget = UNLIMITED) {
  const memory = new IdentityMemory(budget);
  const keys = new CommerceKeys();
  const runner = new ProjectionRunner(
    createCommerceProjection({ identities: memory, keys }),
    { pool: t.pool, codec: t.codec, schema, logger: silentLogger, publisher: { publish: async () => {} } },
    { lookahead: new CommerceLookahead(memory, keys) },
  );
  return runner;
}

function records(events: readonly Given[], from: number): ConsumedRecord[] {
  return events.map((g, i) => ({
    topic: 'test',
    partition: 0,
    offset: String(from + i),
    key: null,
    value: g[0] === 'raw' ? g[1] : t.codec.encode(g[0], g[1]),
    timestamp: '0',
  }));
}

/**
 * Applies `events` in chunks, as the consumer hands them over: each with the next chunk as `upcoming`
 * (prepared while the chunk is written), or with `upcoming` cut differently from what comes next.
 */
async function applyInChunks(
  runners: ProjectionRunner[],
  events: readonly Given[],
  chunk: number,
  { misleading = false } = {},
) {
  for (let i = 0, k = 0; i < events.length; i += chunk, k++) {
    const runner = runners[k % runners.length]!;
    const next = i + chunk;
    const upcoming = misleading
      ? records(events.slice(next, next + chunk - 1), next)
      : records(events.slice(next, next + chunk), next);
    const outcome = await runner.handle({
      topic: 'test',
      partition: 0,
      records: records(events.slice(i, i + chunk), i),
      ...(upcoming.length ? { upcoming } : {}),
    });
    expect(outcome.kind).toBe('applied');
  }
}

/** A stream where later chunks keep resolving to customers created and changed by earlier ones. */
function stream(account: string, n: number, { distinctOrders = false } = {}): Given[] {
  const events: Given[] = [];
  for (let i = 0; i < n; i++) {
    const c = i % 7;
    if (i % 5 === 0)
      events.push([
        'CustomerUpserted',
        customerUpserted(
          metadata(account, at(i)),
          customerRow({ email: `p${c}@x.co`, phone: `+1512555${String(1000 + c)}`, name: `N${i}` }),
        ),
      ]);
    events.push([
      'OrderUpserted',
      orderUpserted(
        metadata(account, at(i)),
        orderRow({
          order_id: distinctOrders ? `o-${i}` : `o-${i % 40}`,
          // Every third order names its customer by a fresh email only, used again three orders later
          // (often in the next chunk): only an exact memory resolves it to the customer just created.
          customer_id: i % 3 === 0 ? null : `c-${c}`,
          email: i % 3 === 0 ? `g${Math.floor(i / 6)}@y.co` : i % 2 ? `p${c}@x.co` : null,
          phone: i % 3 !== 0 && i % 4 === 0 ? `+1512555${String(1000 + c)}` : null,
          order_amount: i,
          refunded_amount: i % 9 === 0 ? 1 : null,
        }),
      ),
    ]);
  }
  return events;
}

async function digestOf(schema: string) {
  return readModelDigest(t.pool, schema, ['customers', 'orders']);
}

describe('identity memory', () => {
  it('gives the rows of the query path, chunk after chunk, in one process', async () => {
    const account = randomUUID();
    const events = stream(account, 120);
    await ensureReadModelSchema(t.pool, 'mem_on');
    await ensureReadModelSchema(t.pool, 'mem_off');
    await applyInChunks([processOn('mem_on')], events, 9);
    await applyInChunks([processOn('mem_off', { customers: 0, orders: 0 })], events, 9);
    const on = await digestOf('mem_on');
    expect(on.customers!.rows).toBeGreaterThan(0);
    expect(on).toEqual(await digestOf('mem_off'));
  });

  it('throws away a chunk prepared ahead when the next chunk is cut differently', async () => {
    // The fold prepared for `upcoming` already changed the memory; the chunk actually applied next
    // differs, so the memory must be rebuilt from the rows, not used as it is.
    const account = randomUUID();
    const events = stream(account, 120, { distinctOrders: true });
    await ensureReadModelSchema(t.pool, 'mem_misled');
    await ensureReadModelSchema(t.pool, 'mem_plain2');
    await applyInChunks([processOn('mem_misled')], events, 9, { misleading: true });
    await applyInChunks([processOn('mem_plain2', { customers: 0, orders: 0 })], events, 9);
    expect(await digestOf('mem_misled')).toEqual(await digestOf('mem_plain2'));
  });

  it('is dropped when another process applied the partition in between', async () => {
    // Two processes take turns on one partition (a rebalance back and forth): each must see what the
    // other wrote. Chunk 2 (process B) creates customers that chunk 3 (process A) must resolve to.
    const account = randomUUID();
    const events = stream(account, 120);
    await ensureReadModelSchema(t.pool, 'mem_turns');
    await ensureReadModelSchema(t.pool, 'mem_single');
    await applyInChunks([processOn('mem_turns'), processOn('mem_turns')], events, 9);
    await applyInChunks([processOn('mem_single', { customers: 0, orders: 0 })], events, 9);
    expect(await digestOf('mem_turns')).toEqual(await digestOf('mem_single'));
  });

  it('leaves an account larger than the budget on the query path, with the same rows', async () => {
    const account = randomUUID();
    const events = stream(account, 120);
    await ensureReadModelSchema(t.pool, 'mem_small');
    await ensureReadModelSchema(t.pool, 'mem_plain');
    await applyInChunks([processOn('mem_small', { customers: 3, orders: 10 })], events, 9);
    await applyInChunks([processOn('mem_plain', { customers: 0, orders: 0 })], events, 9);
    expect(await digestOf('mem_small')).toEqual(await digestOf('mem_plain'));
  });

  it('makes room for a new account by forgetting the one unused for longest', async () => {
    // Three accounts take turns, one per chunk, with room for two: each newcomer evicts the account
    // that waited longest, the memory never exceeds its budget, and the rows match the query path.
    const accounts = [randomUUID(), randomUUID(), randomUUID()];
    const per = (a: string, from: number): Given[] =>
      Array.from({ length: 10 }, (_, k) => {
        const i = from + k;
        return [
          'OrderUpserted',
          orderUpserted(
            metadata(a, at(i)),
            orderRow({ order_id: `o-${i}`, customer_id: `c-${i % 5}`, email: `c${i % 5}@z.co` }),
          ),
        ];
      });
    const events: Given[] = [];
    for (let round = 0; round < 3; round++) for (const a of accounts) events.push(...per(a, round * 10));
    await ensureReadModelSchema(t.pool, 'mem_lru');
    await ensureReadModelSchema(t.pool, 'mem_lru_plain');
    const budget = { customers: 12, orders: 70 };
    const memory = new IdentityMemory(budget);
    const keys = new CommerceKeys();
    const runner = new ProjectionRunner(
      createCommerceProjection({ identities: memory, keys }),
      {
        pool: t.pool,
        codec: t.codec,
        schema: 'mem_lru',
        logger: silentLogger,
        publisher: { publish: async () => {} },
      },
      { lookahead: new CommerceLookahead(memory, keys) },
    );
    for (let i = 0; i < events.length; i += 10) {
      await runner.handle({ topic: 'test', partition: 0, records: records(events.slice(i, i + 10), i) });
      const held = memory.held();
      expect(held.customers).toBeLessThanOrEqual(budget.customers);
      expect(held.orders).toBeLessThanOrEqual(budget.orders);
      // The account of the chunk just applied is always resident, as the most recently used.
      const owner = accounts[(i / 10) % 3]!;
      expect(memory.residents('mem_lru', 0).at(-1)).toBe(owner);
    }
    expect(memory.residents('mem_lru', 0)).toHaveLength(2);
    await applyInChunks([processOn('mem_lru_plain', { customers: 0, orders: 0 })], events, 10);
    expect(await digestOf('mem_lru')).toEqual(await digestOf('mem_lru_plain'));
  });

  it('forgets what a failed chunk folded', async () => {
    // The chunk's fold changes the memory before its transaction fails; the retry must start from
    // what the database holds, not from the half-applied memory.
    const account = randomUUID();
    const schema = 'mem_fail';
    await ensureReadModelSchema(t.pool, schema);
    const runner = processOn(schema);
    const first = stream(account, 20);
    await applyInChunks([runner], first, 100);
    const next: Given[] = [
      [
        'OrderUpserted',
        orderUpserted(metadata(account, at(500)), orderRow({ order_id: 'late-1', customer_id: 'c-new' })),
      ],
    ];
    const batch = { topic: 'test', partition: 0, records: records(next, first.length) };
    // Fails after the fold (a trigger on orders raises a non-data error: the runner throws, the
    // transaction rolls back, nothing is dead-lettered), then succeeds once the trigger is gone.
    await t.pool.query(`
      create function "${schema}".refuse() returns trigger language plpgsql as
        $$ begin raise exception 'refused for the test'; end $$;
      create trigger refuse before insert on "${schema}".orders for each row execute function "${schema}".refuse()`);
    await expect(runner.handle(batch)).rejects.toThrow(/refused for the test/);
    await t.pool.query(`drop trigger refuse on "${schema}".orders`);
    expect(await runner.handle(batch)).toEqual({ kind: 'applied' });
    const { rows } = await t.pool.query<{ n: number }>(
      `select count(*)::int as n from "${schema}".customers where account_id = $1 and external_id = 'c-new'`,
      [account],
    );
    expect(rows[0]!.n).toBe(1);
  });
});
