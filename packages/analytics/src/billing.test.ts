import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTLEMENT_DAYS, decideBilling } from './billing.js';

const MARCH_END = new Date('2025-04-01T00:00:00Z');
const proven = { significantlyPositive: true, lift: 10, incrementalRevenue: 1234.567891 };

describe('decideBilling (spec, general rule 6)', () => {
  it.each([
    ['proven positive', proven, 1234.5679],
    ['not significant', { ...proven, significantlyPositive: false }, 0],
    ['significant but lift not above 0', { ...proven, lift: -3, incrementalRevenue: -900 }, 0],
    ['lift not computable', { ...proven, lift: null }, 0],
    ['incremental revenue not computable', { ...proven, incrementalRevenue: null }, 0],
    ['incremental revenue not finite', { ...proven, incrementalRevenue: Number.NaN }, 0],
  ])('given %s, when billed, then the billable revenue is %d', (_, stats, expected) => {
    expect(
      decideBilling({ ...stats, periodEnd: MARCH_END, now: new Date('2025-04-15T00:00:00Z') }),
    ).toMatchObject({ billableRevenue: expected });
  });

  it.each([
    ['2025-04-15T00:00:00Z', 'provisional', null],
    ['2025-05-30T23:59:59Z', 'provisional', null],
    ['2025-05-31T00:00:00Z', 'final', 1234.5679],
    ['2025-09-01T00:00:00Z', 'final', 1234.5679],
  ])(
    'given March billed at %s, then it is %s (settling %d days after its end), frozen at %s',
    (now, status, frozen) => {
      expect(DEFAULT_SETTLEMENT_DAYS).toBe(60);
      expect(decideBilling({ ...proven, periodEnd: MARCH_END, now: new Date(now) })).toEqual({
        billableRevenue: 1234.5679,
        settlementStatus: status,
        settlesAt: new Date('2025-05-31T00:00:00Z'),
        finalBillableRevenue: frozen,
      });
    },
  );

  it('given 10 settlement days, when billed 10 days after the month, then it is final', () => {
    const d = decideBilling({
      ...proven,
      significantlyPositive: false,
      periodEnd: MARCH_END,
      now: new Date('2025-04-11T00:00:00Z'),
      settlementDays: 10,
    });
    expect(d).toEqual({
      billableRevenue: 0,
      settlementStatus: 'final',
      settlesAt: new Date('2025-04-11T00:00:00Z'),
      finalBillableRevenue: 0,
    });
  });
});
