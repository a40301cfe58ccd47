import { describe, expect, it } from 'vitest';
import { conversionOn, ReferenceRates } from '@holdfast/domain';
import { FxSnapshot } from './fx-snapshot.js';

const rates = ReferenceRates.from([
  { currency: 'USD', day: '2023-12-29', perEur: '1.105' },
  { currency: 'GBP', day: '2023-12-29', perEur: '0.86905' },
  { currency: 'JPY', day: '2023-12-29', perEur: '156.33' },
]);
const EUR_ACCOUNT = '6f1c2d1e-0000-4000-8000-0000000000e1';
const JPY_ACCOUNT = '6f1c2d1e-0000-4000-8000-0000000000e2';
const USD_ACCOUNT = '6f1c2d1e-0000-4000-8000-0000000000e3'; // no reporting currency set: USD

describe('FxSnapshot.conversion (memoised)', () => {
  it('given accounts in several reporting currencies, when orders in every currency and on several days are converted twice, then each conversion is conversionOn of the account currency', () => {
    const fx = new FxSnapshot(
      1,
      rates,
      new Map([
        [EUR_ACCOUNT, 'EUR'],
        [JPY_ACCOUNT, 'JPY'],
      ]),
    );
    const days = [
      '2023-12-29T12:00:00Z',
      '2023-12-31T10:00:00Z',
      '2023-12-20T00:00:00Z',
      '2023-12-29T23:00:00+05:00',
    ];
    for (let round = 0; round < 2; round++)
      for (const [account, to] of [
        [EUR_ACCOUNT, 'EUR'],
        [JPY_ACCOUNT, 'JPY'],
        [USD_ACCOUNT, 'USD'],
      ] as const)
        for (const currency of ['EUR', 'USD', 'GBP', 'JPY', 'XYZ'])
          for (const day of days)
            expect(fx.conversion(account, currency, day)).toEqual(conversionOn(rates, currency, to, day));
  });

  it('given an order in its account reporting currency, when converted on any day, then it is at par with the currency minor units', () => {
    const fx = new FxSnapshot(1, rates, new Map([[JPY_ACCOUNT, 'JPY']]));
    expect(fx.conversion(JPY_ACCOUNT, 'JPY', '1999-01-04T00:00:00Z')).toEqual({
      to: 'JPY',
      rate: '1',
      rateDay: null,
      status: 'same',
      minorUnits: 0,
    });
    expect(fx.conversion(USD_ACCOUNT, 'USD', 'not a date')).toMatchObject({ status: 'same', minorUnits: 2 });
  });
});
