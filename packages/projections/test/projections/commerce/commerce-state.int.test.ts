// The commerce projection's performance state (identity memory, planner statistics) is injected per
// instance: two projections in one process, on one schema, must not see each other's.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pool, PoolClient } from '@holdfast/postgres';
import type { ConsumedRecord } from '@holdfast/kafka';
import { silentLogger } from '@holdfast/platform';
import { ensureReadModelSchema } from '@holdfast/read-models';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import { ProjectionRunner } from '../../../src/runtime/projection-runner.js';
import { metadata, orderRow, orderUpserted } from '@holdfast/testing/events';
import { CommerceLookahead } from '../../../src/projections/commerce/commerce-lookahead.js';
import {
  CommerceKeys,
  createCommerceProjection,
  type CommerceState,
} from '../../../src/projections/commerce/commerce.projection.js';
import { IdentityMemory, NO_IDENTITY_MEMORY } from '../../../src/projections/commerce/identity-memory.js';
import { StatisticsKeeper } from '../../../src/projections/commerce/statistics.js';

let t: TestEnv;
beforeAll(async () => {
  t = await createTestEnv('commercestate');
});
afterAll(() => t.close());

type Method = (...args: unknown[]) => unknown;
const bound = (v: unknown, target: object): unknown =>
  typeof v === 'function' ? (v as Method).bind(target) : v;

/** The pool, with every statement text its clients send recorded in `seen`. */
function recording(pool: Pool, seen: string[]): Pool {
  const watch = (client: PoolClient): PoolClient =>
    new Proxy(client, {
      get(target, prop): unknown {
        const v: unknown = Reflect.get(target, prop);
        if (prop !== 'query') return bound(v, target);
        return (...args: unknown[]) => {
          if (typeof args[0] === 'string') seen.push(args[0]);
          return (v as Method).apply(target, args);
        };
      },
    });
  return new Proxy(pool, {
    get(target, prop): unknown {
      if (prop === 'connect') return async () => watch(await target.connect());
      return bound(Reflect.get(target, prop), target);
    },
  });
}

/** A runner of one commerce projection over `state`, on partition 0 of `schema`. */
function runnerOf(schema: string, state: CommerceState, seen: string[] = []) {
  const keys = state.keys ?? new CommerceKeys();
  const lookahead =
    state.identities instanceof IdentityMemory ? new CommerceLookahead(state.identities, keys) : undefined;
  const runner = new ProjectionRunner(
    createCommerceProjection({ ...state, keys }),
    {
      pool: recording(t.pool, seen),
      codec: t.codec,
      schema,
      logger: silentLogger,
      publisher: { publish: async () => {} },
    },
    { lookahead },
  );
  let next = 0;
  /** Applies `n` new orders of `account` (no customer identity: no customers, only orders). */
  const orders = async (account: string, n: number) => {
    const records = Array.from({ length: n }, (_, i): ConsumedRecord => ({
      topic: 'test',
      partition: 0,
      offset: String(next++),
      key: null,
      value: t.codec.encode(
        'OrderUpserted',
        orderUpserted(metadata(account), orderRow({ order_id: `o-${randomUUID()}-${i}`, customer_id: null })),
      ),
      timestamp: '0',
    }));
    expect((await runner.handle({ topic: 'test', partition: 0, records })).kind).toBe('applied');
  };
  return { orders, skipTo: (offset: number) => (next = offset) };
}

describe('two commerce projections in one process', () => {
  it('keep their own identity memory', async () => {
    const schema = 'state_memory';
    await ensureReadModelSchema(t.pool, schema);
    const [x, y] = [randomUUID(), randomUUID()];
    const memA = new IdentityMemory({ customers: 1000, orders: 1000 });
    const memB = new IdentityMemory({ customers: 1000, orders: 1000 });
    const a = runnerOf(schema, { identities: memA });
    const b = runnerOf(schema, { identities: memB });
    await a.orders(x, 20);
    b.skipTo(20);
    await b.orders(y, 20);
    expect(memA.residents(schema, 0)).toEqual([x]);
    expect(memB.residents(schema, 0)).toEqual([y]);
    expect(memA.held().orders).toBe(20);
    expect(memB.held().orders).toBe(20);
  });

  it('keep their own planner statistics', async () => {
    const schema = 'state_statistics';
    await ensureReadModelSchema(t.pool, schema);
    const statsA = new StatisticsKeeper();
    // Without memory every chunk looks its orders up, refreshing the statistics first when due.
    const a = runnerOf(schema, { identities: NO_IDENTITY_MEMORY, statistics: statsA });
    await a.orders(randomUUID(), 3000);
    await a.orders(randomUUID(), 3000); // 6,000 rows written since the last ANALYZE: due
    const analyses = (seen: string[]) =>
      seen.filter((s) => s.startsWith('/* statistics.analyze */ analyze')).length;

    const seenB: string[] = [];
    const b = runnerOf(schema, { identities: NO_IDENTITY_MEMORY, statistics: new StatisticsKeeper() }, seenB);
    b.skipTo(6000);
    await b.orders(randomUUID(), 10);
    expect(analyses(seenB)).toBe(0); // what A wrote is A's to count

    // The same observation does see a keeper that counted the writes: the one A's chunks fed.
    const seenC: string[] = [];
    const c = runnerOf(schema, { identities: NO_IDENTITY_MEMORY, statistics: statsA }, seenC);
    c.skipTo(6010);
    await c.orders(randomUUID(), 10);
    expect(analyses(seenC)).toBe(1);
  });
});
