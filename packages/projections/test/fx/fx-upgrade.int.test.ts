import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import { DEFAULT_READ_MODEL_SCHEMA, ensureReadModelSchema } from '@holdfast/read-models';
import { importReferenceRates } from '@holdfast/read-models';

let t: TestEnv;
beforeAll(async () => (t = await createTestEnv('fxupgrade')));
afterAll(() => t?.close());

const ADDED = [
  'acquisition_channel',
  'net_amount_reporting',
  'order_amount_reporting',
  'refunded_amount_reporting',
  'reporting_currency',
  'fx_rate',
  'fx_minor_units',
  'fx_rate_date',
  'fx_status',
];

describe('read models created before currency conversion', () => {
  it('given an orders table without the conversion columns, when the schema is ensured, then they are added, old rows read pending at par, and the next import converts them', async () => {
    await ensureReadModelSchema(t.pool, DEFAULT_READ_MODEL_SCHEMA);
    // The table as the first release created it: none of the added columns.
    await t.pool.query(
      `alter table read_models.orders ${ADDED.map((c) => `drop column ${c} cascade`).join(', ')}`,
    );
    const account = '6f1c2d1e-0000-4000-8000-0000000000aa';
    await t.pool.query(
      `insert into read_models.orders (account_id, order_id, order_date, order_amount, product_name, currency,
         refunded_amount, first_seen_at, updated_at)
       values ($1, 'o1', '2023-12-29T12:00:00Z', 100, 'Tea', 'EUR', 10, now(), now())`,
      [account],
    );

    await ensureReadModelSchema(t.pool, DEFAULT_READ_MODEL_SCHEMA);
    const row = async () =>
      (
        await t.pool.query<Record<string, string | null>>(
          `select reporting_currency, fx_status, fx_rate::text, order_amount_reporting::text,
                  net_amount_reporting::text from read_models.orders where order_id = 'o1'`,
        )
      ).rows[0];
    expect(await row()).toEqual({
      reporting_currency: 'USD',
      fx_status: 'pending',
      fx_rate: '1',
      order_amount_reporting: '100.00',
      net_amount_reporting: '90.00',
    });

    await importReferenceRates(
      t.pool,
      'one-day.csv',
      Buffer.from('Date,USD,JPY,GBP,\n2023-12-29,1.105,156.33,0.86905,\n'),
    );
    expect(await row()).toEqual({
      reporting_currency: 'USD',
      fx_status: 'converted',
      fx_rate: '1.105000000000',
      order_amount_reporting: '110.50',
      net_amount_reporting: '99.45',
    });
  });
});
