import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_READ_MODEL_SCHEMA, ensureReadModelSchema } from '@holdfast/read-models';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import { runCaptured } from '../testing/capture.js';

// Real ECB rows (eurofxref-hist.csv), committed as the fixture of packages/domain.
const SAMPLE = fileURLToPath(
  new URL('../../../domain/fixtures/ecb-eurofxref-hist-sample.csv', import.meta.url),
);

let t: TestEnv;
let dir: string;
beforeAll(async () => {
  t = await createTestEnv('cli-rates');
  await ensureReadModelSchema(t.pool, DEFAULT_READ_MODEL_SCHEMA);
  dir = mkdtempSync(join(tmpdir(), 'holdfast-rates-'));
});
afterAll(() => t.close());

const storedRate = async (currency: string, day: string) =>
  (
    await t.pool.query<{ per_eur: string }>(
      `select per_eur::text from fx.rates where currency = $1 and rate_date = $2`,
      [currency, day],
    )
  ).rows[0]?.per_eur;

describe('holdfast rates', () => {
  it('imports an ECB history file, skips what is already stored, and refuses a file that changes a stored rate', async () => {
    const first = await runCaptured(['rates', 'import', SAMPLE, '--json'], t.env);
    expect(first.code).toBe(0);
    const r = first.json<{ days: number; rates_added: number; rates_known: number; currencies: string[] }>();
    expect(r).toMatchObject({ days: 21, rates_known: 0 });
    expect(r.currencies).toContain('JPY');
    expect(await storedRate('USD', '2023-12-29')).toBe('1.105');
    expect(await storedRate('GBP', '2023-12-29')).toBe('0.86905');

    const again = await runCaptured(['rates', 'import', SAMPLE, '--json'], t.env);
    expect(again.json()).toMatchObject({ rates_added: 0, rates_known: r.rates_added });

    // One more day (the daily file's layout) adds, a different value for a stored day refuses.
    const daily = join(dir, 'eurofxref.csv');
    writeFileSync(daily, 'Date, USD, JPY, \n8 January 2024, 1.0946, 158.08, \n');
    expect((await runCaptured(['rates', 'import', daily, '--json'], t.env)).json()).toMatchObject({
      days: 1,
      rates_added: 2,
    });
    const changed = join(dir, 'changed.csv');
    writeFileSync(changed, 'Date,USD,\n2023-12-29,1.2,\n');
    const refused = await runCaptured(['rates', 'import', changed], t.env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('USD 2023-12-29 stored 1.105, file 1.2');
    expect(await storedRate('USD', '2023-12-29')).toBe('1.105');

    const broken = join(dir, 'broken.csv');
    writeFileSync(broken, 'Date,USD,\n2023-12-32,1.2,\n');
    const unreadable = await runCaptured(['rates', 'import', broken], t.env);
    expect(unreadable.code).toBe(2);
    expect(unreadable.stderr).toContain('line 2: "2023-12-32" is not a date');
  });

  it('sets an account’s reporting currency (quoted by the rates, or EUR) and lists unconverted orders', async () => {
    const { id } = (await runCaptured(['accounts', 'create', '--name', 'Yen shop', '--json'], t.env)).json<{
      id: string;
    }>();
    const set = await runCaptured(['accounts', 'set-currency', id, 'jpy', '--json'], t.env);
    expect(set.code).toBe(0);
    expect(set.json()).toEqual({ id, reporting_currency: 'JPY', orders_reconverted: 0 });
    const unknown = await runCaptured(['accounts', 'set-currency', id, 'XYZ'], t.env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no reference rates quote XYZ');

    await t.pool.query(
      `insert into read_models.orders (account_id, order_id, order_date, order_amount, product_name, currency,
         first_seen_at, updated_at)
       values ($1, 'o1', '2024-01-02T10:00:00Z', 12, 'Tea', 'ABC', now(), now())`,
      [id],
    );
    // Stored before any conversion ('pending'): the next change re-converts it, as unknown.
    expect(
      (await runCaptured(['accounts', 'set-currency', id, 'EUR', '--json'], t.env)).json(),
    ).toMatchObject({
      orders_reconverted: 1,
    });
    const listed = await runCaptured(['rates', 'unconverted', '--account', id, '--json'], t.env);
    expect(listed.json()).toMatchObject([
      {
        account_id: id,
        currency: 'ABC',
        reporting_currency: 'EUR',
        fx_status: 'unknown_currency',
        orders: 1,
      },
    ]);
  });
});
