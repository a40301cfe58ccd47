import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import { DEFAULT_READ_MODEL_SCHEMA, ensureReadModelSchema } from '@holdfast/read-models';
import { FX_LOCK_SQL, FxSnapshots, importReferenceRates } from '@holdfast/read-models';

let t: TestEnv;
beforeAll(async () => {
  t = await createTestEnv('fxlock');
  await ensureReadModelSchema(t.pool, DEFAULT_READ_MODEL_SCHEMA);
});
afterAll(() => t?.close());

const settled = async (p: Promise<unknown>, ms: number) =>
  Promise.race([p.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms))]);

const ACCOUNT = '6f1c2d1e-0000-4000-8000-0000000000bb';

describe('the fx lock between projector chunks and rate imports', () => {
  it('given a chunk converting with old rates, when an import starts meanwhile, then it waits for the chunk and re-converts its order', async () => {
    const snapshots = new FxSnapshots();
    const chunk = await t.pool.connect();
    try {
      await chunk.query('begin');
      const before = await snapshots.current(chunk);
      const c = before.conversion(ACCOUNT, 'EUR', '2023-12-29T12:00:00.000Z');
      expect(c.status).toBe('no_rate'); // no rates yet: at par
      const importing = importReferenceRates(
        t.pool,
        'day.csv',
        Buffer.from('Date,USD,\n2023-12-29,1.105,\n'),
      );
      expect(await settled(importing, 300)).toBe(false); // held by the chunk's shared lock
      await chunk.query(
        `insert into read_models.orders (account_id, order_id, order_date, order_amount, product_name, currency,
           first_seen_at, updated_at, reporting_currency, fx_rate, fx_minor_units, fx_rate_date, fx_status)
         values ($1, 'o1', '2023-12-29T12:00:00Z', 100, 'Tea', 'EUR', now(), now(), $2, $3, $4, $5, $6)`,
        [ACCOUNT, c.to, c.rate, c.minorUnits, c.rateDay, c.status],
      );
      await chunk.query('commit');
      expect(await importing).toMatchObject({ ordersReconverted: 1 });
    } finally {
      chunk.release();
    }
    const { rows } = await t.pool.query<{ fx_status: string; amount: string }>(
      `select fx_status, order_amount_reporting::text as amount from read_models.orders where order_id = 'o1'`,
    );
    expect(rows).toEqual([{ fx_status: 'converted', amount: '110.50' }]);
  });

  it('given a rates change holding the lock, when a chunk starts meanwhile, then it waits and reads the new version', async () => {
    const snapshots = new FxSnapshots();
    const probe = await t.pool.connect();
    await probe.query('begin');
    const old = (await snapshots.current(probe)).version;
    await probe.query('commit');
    probe.release();

    const change = await t.pool.connect();
    const chunk = await t.pool.connect();
    try {
      await change.query('begin');
      await change.query(`select pg_advisory_xact_lock(${FX_LOCK_SQL})`);
      await change.query(`update fx.version set version = version + 1`);
      await chunk.query('begin');
      const reading = snapshots.current(chunk);
      expect(await settled(reading, 300)).toBe(false);
      await change.query('commit');
      expect((await reading).version).toBe(old + 1);
      await chunk.query('commit');
    } finally {
      change.release();
      chunk.release();
    }
  });
});
