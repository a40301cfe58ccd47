// Currency end to end: orders in EUR, GBP, JPY and an unknown code go through the real log and the
// real projector, which converts them at published ECB rates into the account's reporting currency;
// the recompute's lifetime value sums the converted amounts; a rebuild converts the same.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '@holdfast/control-plane';
import { convertAmount, conversionOn, parseEcbCsv, ReferenceRates } from '@holdfast/domain';
import { silentLogger } from '@holdfast/platform';
import { rebuildReadModels, startProjector, type RunningProjector } from '@holdfast/projections';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import {
  appendCommerce,
  customerUpserted,
  orderUpserted,
  waitFor,
} from '../campaigns/test-support/commerce-events.js';
import { recomputeAccount } from '../../src/scoring/recompute-account.js';
import { prepareSchemas } from './testing/read-model-fixture.js';
import {
  DEFAULT_READ_MODEL_SCHEMA,
  importReferenceRates,
  setReportingCurrency,
  unconvertedOrders,
} from '@holdfast/read-models';

// Real ECB rows (eurofxref-hist.csv): Christmas 2023 to 5 January 2024 and Easter 2024, among others.
const SAMPLE = readFileSync(
  new URL('../../../../packages/domain/fixtures/ecb-eurofxref-hist-sample.csv', import.meta.url),
);

let t: TestEnv;
let projector: RunningProjector;

beforeAll(async () => {
  t = await createTestEnv('currency');
  await prepareSchemas(t);
  projector = await startProjector(
    { topicPrefix: t.topicPrefix, readSchema: DEFAULT_READ_MODEL_SCHEMA, sessionTimeoutMs: 6_000 },
    { pool: t.pool, kafka: t.kafka, codec: t.codec, logger: silentLogger },
  );
});
afterAll(async () => {
  await projector?.stop();
  await t?.close();
});

interface ConvertedOrder {
  order_id: string;
  currency: string;
  order_amount: string;
  reporting_currency: string;
  fx_rate_date: string | null;
  fx_status: string;
  order_amount_reporting: string;
  net_amount_reporting: string;
}

const convertedOrders = async (schema: string, account: string) =>
  (
    await t.pool.query<ConvertedOrder>(
      `select order_id, currency, order_amount::text, reporting_currency, fx_rate_date::text, fx_status,
              order_amount_reporting::text, net_amount_reporting::text
         from "${schema}".orders where account_id = $1 order by order_id`,
      [account],
    )
  ).rows;

const realisedRevenue = async (account: string, customerExternalId: string) =>
  (
    await t.pool.query<{ realised_revenue: string }>(
      `select realised_revenue::text from analytics.customer_scores where account_id = $1 and external_id = $2`,
      [account, customerExternalId],
    )
  ).rows[0]?.realised_revenue;

describe('currency conversion through the projector and the recompute', () => {
  it('given published rates and a customer buying in EUR, GBP, JPY and an unknown code, then LTV sums the converted amounts, per reporting currency, and a rebuild converts the same', async () => {
    const { id: account } = await createAccount(t.db, {
      name: 'Mixed currencies',
      storefrontDomain: null,
      isDemo: false,
      isSandbox: false,
    });
    const imported = await importReferenceRates(t.pool, 'sample.csv', SAMPLE);
    expect(imported).toMatchObject({ days: 21, ratesKnown: 0 });

    const received = '2024-04-05T00:00:00.000Z';
    await appendCommerce(t, account, [
      { type: 'CustomerUpserted', value: customerUpserted(account, 'C1', 'ann@example.com', received) },
      ...[
        // A business day; a Sunday (Friday's rates); Good Friday (Thursday's); an unknown code (1.0).
        { order_id: 'o1', order_date: '2024-01-02T15:00:00.000Z', order_amount: 100, currency: 'EUR' },
        { order_id: 'o2', order_date: '2023-12-31T10:00:00.000Z', order_amount: 50, currency: 'GBP' },
        { order_id: 'o3', order_date: '2024-03-29T09:00:00.000Z', order_amount: 10_000, currency: 'JPY' },
        { order_id: 'o4', order_date: '2024-03-29T09:00:00.000Z', order_amount: 5, currency: 'XYZ' },
        // Refunded in part: the converted refund follows.
        {
          order_id: 'o5',
          order_date: '2024-01-04T09:00:00.000Z',
          order_amount: 20,
          currency: 'GBP',
          refunded_amount: 5,
        },
      ].map((o) => ({
        type: 'OrderUpserted' as const,
        value: orderUpserted(account, { customer_id: 'C1', ...o }, received),
      })),
    ]);
    await waitFor('the projector to fold the orders', async () =>
      (await convertedOrders(DEFAULT_READ_MODEL_SCHEMA, account)).length === 5 ? true : undefined,
    );

    // The domain rule, on the same published rates, is what the read model stores.
    const parsed = parseEcbCsv(SAMPLE.toString('utf8'));
    if (!parsed.ok) throw new Error('sample');
    const rates = ReferenceRates.from(parsed.rates);
    const expected = (amount: number, from: string, to: string, at: string) =>
      convertAmount(amount, conversionOn(rates, from, to, at));

    expect(await convertedOrders(DEFAULT_READ_MODEL_SCHEMA, account)).toEqual([
      {
        order_id: 'o1',
        currency: 'EUR',
        order_amount: '100.0000',
        reporting_currency: 'USD',
        fx_rate_date: '2024-01-02',
        fx_status: 'converted',
        order_amount_reporting: '109.56',
        net_amount_reporting: '109.56',
      },
      {
        order_id: 'o2',
        currency: 'GBP',
        order_amount: '50.0000',
        reporting_currency: 'USD',
        fx_rate_date: '2023-12-29',
        fx_status: 'converted',
        order_amount_reporting: '63.58',
        net_amount_reporting: '63.58',
      },
      {
        order_id: 'o3',
        currency: 'JPY',
        order_amount: '10000.0000',
        reporting_currency: 'USD',
        fx_rate_date: '2024-03-28',
        fx_status: 'converted',
        order_amount_reporting: '66.14',
        net_amount_reporting: '66.14',
      },
      {
        order_id: 'o4',
        currency: 'XYZ',
        order_amount: '5.0000',
        reporting_currency: 'USD',
        fx_rate_date: null,
        fx_status: 'unknown_currency',
        order_amount_reporting: '5.00',
        net_amount_reporting: '5.00',
      },
      // 20 × 1.0953/0.86278 = 25.39, refund 5 × … = 6.35
      {
        order_id: 'o5',
        currency: 'GBP',
        order_amount: '20.0000',
        reporting_currency: 'USD',
        fx_rate_date: '2024-01-04',
        fx_status: 'converted',
        order_amount_reporting: '25.39',
        net_amount_reporting: '19.04',
      },
    ]);
    expect(expected(10_000, 'JPY', 'USD', '2024-03-29T09:00:00.000Z')).toBe('66.14');
    expect(expected(20, 'GBP', 'USD', '2024-01-04T09:00:00.000Z')).toBe('25.39');

    // The unknown code is counted for the operator.
    expect(await unconvertedOrders(t.pool, DEFAULT_READ_MODEL_SCHEMA, account)).toMatchObject([
      {
        account_id: account,
        currency: 'XYZ',
        reporting_currency: 'USD',
        fx_status: 'unknown_currency',
        orders: 1,
      },
    ]);

    const asOf = new Date('2024-04-05T02:00:00.000Z');
    await recomputeAccount({ pool: t.pool, readModelSchema: DEFAULT_READ_MODEL_SCHEMA }, account, asOf);
    // 109.56 + 63.58 + 66.14 + 5.00 + 19.04: not 10,000 yen added to euros.
    expect(Number(await realisedRevenue(account, 'C1'))).toBeCloseTo(263.32, 6);

    // Reporting in EUR: the stored orders are re-converted at once, and the LTV follows.
    expect(await setReportingCurrency(t.pool, account, 'EUR')).toBe(5);
    const inEur = await convertedOrders(DEFAULT_READ_MODEL_SCHEMA, account);
    expect(inEur.map((o) => [o.order_id, o.reporting_currency, o.net_amount_reporting])).toEqual([
      ['o1', 'EUR', '100.00'],
      ['o2', 'EUR', expected(50, 'GBP', 'EUR', '2023-12-31T10:00:00.000Z')], // 57.53
      ['o3', 'EUR', expected(10_000, 'JPY', 'EUR', '2024-03-29T09:00:00.000Z')], // 61.18
      ['o4', 'EUR', '5.00'],
      ['o5', 'EUR', '17.38'], // 23.18 − 5.80
    ]);
    await recomputeAccount({ pool: t.pool, readModelSchema: DEFAULT_READ_MODEL_SCHEMA }, account, asOf);
    expect(Number(await realisedRevenue(account, 'C1'))).toBeCloseTo(100 + 57.53 + 61.18 + 5 + 17.38, 6);

    // A rebuild from offset 0 converts exactly as the live read model now holds.
    await rebuildReadModels(
      {
        topicPrefix: t.topicPrefix,
        readSchema: DEFAULT_READ_MODEL_SCHEMA,
        projections: ['commerce'],
        noSwitch: true,
      },
      { pool: t.pool, kafka: t.kafka, codec: t.codec, logger: silentLogger },
    );
    expect(await convertedOrders('read_models_next', account)).toEqual(inEur);
  }, 120_000);
});
