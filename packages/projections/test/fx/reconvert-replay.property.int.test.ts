// A re-conversion is what a replay would write. Stored orders are converted with the fx data of the
// committed fx version (immutable reference rates, each account's reporting currency); a rates import
// or a currency change re-converts the stored orders in place (reconvertOrders). On random interleavings
// of orders, rate imports and currency changes, replaying the same events afterwards into a fresh
// schema must give exactly the live orders, every column.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OrderRow } from '@holdfast/contracts';
import { createAccount } from '@holdfast/control-plane';
import { FxInputError, importReferenceRates, setReportingCurrency } from '@holdfast/read-models';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import { metadata, orderRow, orderUpserted } from '@holdfast/testing/events';
import { ProjectionHarness, type Given } from '../test-support/projection-harness.js';
import { wireCommerce } from '../../src/projections/commerce/commerce.projection.js';

let t: TestEnv;
let live: ProjectionHarness;
let replay: ProjectionHarness;

beforeAll(async () => {
  t = await createTestEnv('fxreplay');
  live = await ProjectionHarness.create(t, 'fxlive', wireCommerce());
  replay = await ProjectionHarness.create(t, 'fxreplay', wireCommerce());
});
afterAll(() => t.close());

// Mon 3 to Sun 9 June 2024: the weekend has no rates (the last business day's apply).
const DAYS = ['2024-06-03', '2024-06-04', '2024-06-05', '2024-06-06', '2024-06-07'];
const QUOTED = ['USD', 'GBP', 'JPY'] as const;
/** One value per currency and day, whichever import brings it (stored rates never change). */
const perEur = (currency: string, day: number) =>
  ({ USD: 1.08 + day * 0.0031, GBP: 0.85 - day * 0.0017, JPY: 169.5 + day * 0.37 })[currency]!.toFixed(4);

const ratesArb = fc.record({
  days: fc.subarray([0, 1, 2, 3, 4], { minLength: 1 }),
  currencies: fc.subarray([...QUOTED], { minLength: 1 }),
});
const orderArb = fc.record({
  order_id: fc.constantFrom('o-1', 'o-2', 'o-3', 'o-4'),
  // UTC days, a weekend, and an instant whose UTC day is not its written day.
  order_date: fc.constantFrom(
    '2024-06-03T10:00:00.000Z',
    '2024-06-05T23:59:59.999Z',
    '2024-06-06T00:30:00.000+02:00',
    '2024-06-08T12:00:00.000Z',
    '2024-06-09T12:00:00.000Z',
  ),
  order_amount: fc.constantFrom(0, 19.99, 100, 1234.5678),
  currency: fc.constantFrom('USD', 'EUR', 'GBP', 'JPY', 'CHF'),
  refunded_amount: fc.option(fc.constantFrom(0, 5.55, 19.99), { nil: null }),
  cancelled_at: fc.option(fc.constant('2024-06-10T00:00:00.000Z'), { nil: null, freq: 4 }),
});
const stepArb = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .array(orderArb, { minLength: 1, maxLength: 4 })
      .map((rows) => ({ kind: 'orders' as const, rows })),
  },
  { weight: 1, arbitrary: ratesArb.map((r) => ({ kind: 'rates' as const, ...r })) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom('USD', 'EUR', 'GBP', 'JPY')
      .map((code) => ({ kind: 'currency' as const, code })),
  },
);

const ratesCsv = (days: readonly number[], currencies: readonly string[]) =>
  [
    `Date,${currencies.join(',')},`,
    ...days.map((d) => `${DAYS[d]},${currencies.map((c) => perEur(c, d)).join(',')},`),
  ].join('\n') + '\n';

const orders = (h: ProjectionHarness, account: string) =>
  h.rows(`select * from rm.orders where account_id = $1 order by order_id`, [account]);

describe('a re-conversion is what a replay writes', () => {
  it('on random orders, rate imports and reporting-currency changes, a replay gives the live orders', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 8 }), async (steps) => {
        const account = (await createAccount(t.db, { name: 'Shop' })).id;
        const events: Given[] = [];
        let minute = 0;
        for (const step of steps) {
          if (step.kind === 'orders') {
            const batch = step.rows.map((r): Given => {
              const receivedAt = new Date(Date.UTC(2024, 5, 10, 0, ++minute)).toISOString();
              const row: OrderRow = orderRow({ ...r, customer_id: 'c-1' });
              return ['OrderUpserted', orderUpserted(metadata(account, receivedAt), row)];
            });
            events.push(...batch);
            await live.apply(batch);
          } else if (step.kind === 'rates') {
            await importReferenceRates(
              t.pool,
              'rates.csv',
              Buffer.from(ratesCsv(step.days, step.currencies)),
            );
          } else {
            // A currency no stored rate quotes is refused and changes nothing.
            await setReportingCurrency(t.pool, account, step.code).catch((e: unknown) => {
              if (!(e instanceof FxInputError)) throw e;
            });
          }
        }
        await replay.apply(events);
        expect(await orders(replay, account)).toEqual(await orders(live, account));
      }),
      { numRuns: 30 },
    );
  });
});
