import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { conversionOn, convertAmount } from './convert.js';
import { currencyCode } from './currency-code.js';
import { formatDecimal, parseDecimal, roundDecimal } from './decimal.js';
import { parseEcbCsv } from './ecb-csv.js';
import { minorUnits } from './minor-units.js';
import { ReferenceRates, epochDay } from './reference-rates.js';

// Real ECB euro reference rates (eurofxref-hist.csv rows, unchanged): Christmas 2023 to 5 January
// 2024, Easter 2024, RUB's last quotes in March 2022, 10 April 2019 and the first day, 4 January 1999.
const SAMPLE = readFileSync(new URL('../../fixtures/ecb-eurofxref-hist-sample.csv', import.meta.url), 'utf8');
const parsed = parseEcbCsv(SAMPLE);
if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
const rates = ReferenceRates.from(parsed.rates);

/** given the published rates, when an amount of an order placed at `at` is converted, then … */
const convert = (amount: number, from: string, to: string, at: string) => {
  const c = conversionOn(rates, from, to, at);
  return { ...c, amount: convertAmount(amount, c) };
};

describe('parseEcbCsv (the eurofxref-hist.csv layout)', () => {
  it('given the published history rows, when parsed, then every quoted rate is read and N/A cells are skipped', () => {
    expect(parsed.days).toBe(21);
    expect(parsed.rates).toContainEqual({ currency: 'USD', day: '2023-12-29', perEur: '1.105' });
    expect(parsed.rates).toContainEqual({ currency: 'JPY', day: '2023-12-29', perEur: '156.33' });
    expect(parsed.rates).toContainEqual({ currency: 'GBP', day: '2023-12-29', perEur: '0.86905' });
    expect(parsed.rates).toContainEqual({ currency: 'USD', day: '1999-01-04', perEur: '1.1789' });
    expect(parsed.rates.some((r) => r.currency === 'CYP' && r.day === '2023-12-29')).toBe(false);
  });

  it('given the daily file layout (spaces, "13 April 2026"), when parsed, then it reads the same way', () => {
    const daily = parseEcbCsv('Date, USD, JPY, \n13 April 2026, 1.1684, 186.75, \n');
    expect(daily).toEqual({
      ok: true,
      days: 1,
      currencies: ['JPY', 'USD'],
      rates: [
        { currency: 'USD', day: '2026-04-13', perEur: '1.1684' },
        { currency: 'JPY', day: '2026-04-13', perEur: '186.75' },
      ],
    });
  });

  it('given unreadable lines, when parsed, then the whole file is refused with every issue listed', () => {
    expect(parseEcbCsv('Date,USD,usd\n2024-02-30,1.1,2\n2024-03-01,-1,abc\n')).toEqual({
      ok: false,
      issues: [
        { line: 1, message: 'column 3: "usd" is not a 3-letter currency code' },
        { line: 2, message: '"2024-02-30" is not a date' },
        { line: 3, message: 'USD: "-1" is not a positive rate' },
        { line: 3, message: 'usd: "abc" is not a positive rate' },
      ],
    });
    expect(parseEcbCsv('When,USD\n')).toEqual({
      ok: false,
      issues: [{ line: 1, message: 'the header must start with "Date"' }],
    });
  });

  it('given quoted cells and blank lines, when parsed, then the quotes are read as CSV and the lines keep their numbers', () => {
    expect(parseEcbCsv('"Date","USD"\n\n"2024-03-15","1.0892"\n2024-03-16,x\n')).toEqual({
      ok: false,
      issues: [{ line: 4, message: 'USD: "x" is not a positive rate' }],
    });
    expect(parseEcbCsv('"Date","USD"\n"2024-03-15","1.0892"\n')).toMatchObject({ ok: true, days: 1 });
  });

  it('given an unclosed quote, when parsed, then the file is refused at the line of the opening quote', () => {
    const parsed = parseEcbCsv('Date,USD\n2024-03-15,"1.0892\n');
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.issues).toEqual([
      { line: 2, message: expect.stringMatching(/^not readable as CSV: Quote Not Closed/) as unknown },
    ]);
  });
});

describe('conversionOn / convertAmount (cross via EUR, nearest earlier business day, minor units)', () => {
  it('given EUR on a business day, when converted to USD, then the day’s USD rate applies', () => {
    expect(convert(100, 'EUR', 'USD', '2024-01-02T15:00:00Z')).toMatchObject({
      amount: '109.56',
      rate: '1.095600000000',
      rateDay: '2024-01-02',
      status: 'converted',
    });
  });

  it('given GBP on a Sunday, when converted to USD, then Friday’s rates give the cross rate USD/GBP through EUR', () => {
    expect(convert(50, 'GBP', 'USD', '2023-12-31T10:00:00Z')).toMatchObject({
      amount: '63.58',
      rate: '1.271503365744', // 1.1050 / 0.86905
      rateDay: '2023-12-29',
      status: 'converted',
    });
  });

  it.each([
    ['Christmas Day', '2023-12-25T12:00:00Z', '2023-12-22'],
    ['Boxing Day', '2023-12-26T12:00:00Z', '2023-12-22'],
    ['New Year’s Day', '2024-01-01T12:00:00Z', '2023-12-29'],
    ['Good Friday', '2024-03-29T12:00:00Z', '2024-03-28'],
    ['Easter Monday', '2024-04-01T12:00:00Z', '2024-03-28'],
  ])(
    'given an order on %s (no ECB fixing), when converted, then the nearest earlier business day is used',
    (_, at, day) => {
      expect(conversionOn(rates, 'JPY', 'USD', at).rateDay).toBe(day);
    },
  );

  it('given JPY, when converted to USD, then JPY→USD crosses through EUR and rounds to cents', () => {
    expect(convert(10_000, 'JPY', 'USD', '2024-03-29T09:00:00Z')).toMatchObject({
      amount: '66.14',
      rate: '0.006614255124', // 1.0811 / 163.45 (28 March)
    });
    expect(convert(1_000, 'JPY', 'USD', '2023-12-29T09:00:00Z').amount).toBe('7.07');
  });

  it('given a reporting currency without minor units (JPY), when converted, then amounts round to whole yen', () => {
    expect(convert(10.5, 'EUR', 'JPY', '2023-12-29T09:00:00Z')).toMatchObject({
      amount: '1641',
      minorUnits: 0,
    });
    expect(convert(99.99, 'GBP', 'JPY', '2023-12-29T09:00:00Z').amount).toBe('17987');
  });

  it('given an exact half cent (1 EUR × 1.105), when rounded, then it goes away from zero (floats would give 1.10)', () => {
    expect(convert(1, 'EUR', 'USD', '2023-12-29T09:00:00Z').amount).toBe('1.11');
    expect(convert(-1, 'EUR', 'USD', '2023-12-29T09:00:00Z').amount).toBe('-1.11');
  });

  it('given the order’s UTC date, when the local date differs, then the UTC date decides the day', () => {
    // 23:30 on the 1st at UTC−02:00 is the 2nd in UTC.
    expect(conversionOn(rates, 'EUR', 'USD', '2024-01-01T23:30:00-02:00').rateDay).toBe('2024-01-02');
  });

  it('given the reporting currency itself, when converted, then it stays as it is (status same)', () => {
    expect(convert(12.345, 'USD', 'USD', '2023-12-29T09:00:00Z')).toMatchObject({
      amount: '12.35',
      rate: '1',
      rateDay: null,
      status: 'same',
    });
  });

  it('given an unknown 3-letter code, when converted, then it converts at 1.0 (spec) and says so', () => {
    expect(convert(42, 'XYZ', 'USD', '2023-12-29T09:00:00Z')).toMatchObject({
      amount: '42.00',
      rate: '1',
      rateDay: null,
      status: 'unknown_currency',
    });
  });

  it('given a quoted currency with no rate within a week before the day, when converted, then 1.0 and no_rate', () => {
    // RUB was last quoted on 1 March 2022.
    expect(convert(1_000, 'RUB', 'USD', '2022-03-02T09:00:00Z')).toMatchObject({
      amount: '9.48',
      rateDay: '2022-03-01',
      status: 'converted',
    });
    expect(convert(1_000, 'RUB', 'USD', '2022-03-20T09:00:00Z')).toMatchObject({
      rate: '1',
      status: 'no_rate',
    });
    expect(convert(5, 'USD', 'EUR', '1998-12-31T09:00:00Z')).toMatchObject({ status: 'no_rate' });
  });

  it('given the rates of 4 January 1999 (the first fixing), when converted, then they apply', () => {
    expect(convert(100, 'USD', 'EUR', '1999-01-04T12:00:00Z')).toMatchObject({
      amount: '84.82', // 100 / 1.1789
      rateDay: '1999-01-04',
    });
  });
});

describe('money helpers', () => {
  it.each([
    ['JPY', 0],
    ['KRW', 0],
    ['ISK', 0],
    ['USD', 2],
    ['EUR', 2],
    ['KWD', 3],
    ['XYZ', 2],
  ])('minorUnits(%s) = %i', (code, units) => expect(minorUnits(code)).toBe(units));

  it('rounds exactly, half away from zero, from any decimal text', () => {
    expect(formatDecimal(roundDecimal(parseDecimal('2.345'), 2))).toBe('2.35');
    expect(formatDecimal(roundDecimal(parseDecimal('-2.345'), 2))).toBe('-2.35');
    expect(formatDecimal(roundDecimal(parseDecimal('1e-7'), 4))).toBe('0.0000');
    expect(formatDecimal(roundDecimal(parseDecimal('1.5e3'), 0))).toBe('1500');
    expect(epochDay('2024-03-15')).toBe(19797);
  });
});

describe('currencyCode (a reporting currency typed by a person)', () => {
  it('given a lower-case code with spaces, when read, then it is the trimmed upper-case code', () => {
    expect(currencyCode(' eur ')).toBe('EUR');
    expect(currencyCode('JPY')).toBe('JPY');
  });

  it('given anything but three letters, when read, then it is refused', () => {
    for (const input of ['', 'EURO', 'EU', 'E1R', 'US$', '€', 'U S'])
      expect(currencyCode(input), input).toBeUndefined();
  });
});
