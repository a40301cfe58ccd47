import { describe, expect, it } from 'vitest';
import { billedAmount, whyBilled, type LiftFigures } from './why-billed.js';

/** November 2026's win_back report: significant and billed unless a test says otherwise. */
const report = (o: Partial<LiftFigures> = {}): LiftFigures => ({
  campaign_type: 'win_back',
  period_start: '2026-11-01T00:00:00.000Z',
  treated_customers: 1900,
  holdout_customers: 100,
  lift: 12,
  interval: { low: 3.1, high: 20.9 },
  mde: 9.5,
  incremental_revenue: 22800,
  billable_revenue: 22800,
  settlement_status: 'provisional',
  settles_at: '2027-01-30T00:00:00.000Z',
  settled_at: null,
  final_billable_revenue: null,
  ...o,
});

describe('whyBilled', () => {
  it('given an interval above zero, when explained, then the month is billed its incremental revenue, and why', () => {
    expect(whyBilled(report(), 'USD')).toBe(
      'Billed $22,800.00 for win_back in November 2026: treated customers spent $12.00 more each than the holdout, ' +
        'and the 95% interval ($3.10 to $20.90) is above zero, so the $22,800.00 of incremental revenue over ' +
        '1,900 treated customers is proven. Provisional until 2027-01-30: refunds until then can still change it.',
    );
  });

  it('given a positive lift whose interval includes zero, when explained, then not billed: not proven, with the MDE', () => {
    const s = whyBilled(
      report({
        lift: 4,
        interval: { low: -2.5, high: 10.5 },
        billable_revenue: 0,
        incremental_revenue: 7600,
      }),
      'USD',
    );
    expect(s).toBe(
      'Not billed for win_back in November 2026: treated customers spent $4.00 more each than the holdout, but the ' +
        '95% interval (-$2.50 to $10.50) includes zero, so the lift is not proven. With 1,900 treated and 100 ' +
        'held-out customers, only a lift of about $9.50 per customer could be proven. Provisional until 2027-01-30: ' +
        'refunds until then can still change it.',
    );
  });

  it('given a negative lift, when explained, then not billed: the campaign added nothing', () => {
    expect(
      whyBilled(report({ lift: -3, interval: { low: -9, high: 2 }, billable_revenue: 0 }), 'EUR'),
    ).toMatch(
      /^Not billed for win_back in November 2026: treated customers spent €3\.00 less each than the holdout, so the campaign added no revenue to bill\./,
    );
  });

  it('given a lift of exactly zero, when explained, then not billed: no more than the holdout', () => {
    expect(whyBilled(report({ lift: 0, billable_revenue: 0 }), 'USD')).toContain(
      'spent no more than the holdout, so the campaign added no revenue to bill.',
    );
  });

  it('given fewer than two customers in a group, when explained, then not billed: no estimate, with the counts', () => {
    const s = whyBilled(
      report({ holdout_customers: 1, lift: null, interval: null, mde: null, billable_revenue: 0 }),
      'USD',
    );
    expect(s).toMatch(
      /^Not billed for win_back in November 2026: lift needs at least two customers in each group, and there were 1,900 treated and 1 held out\./,
    );
  });

  it('given a settled month, when explained, then the final figure is the one billed and it says final since when', () => {
    const s = whyBilled(
      report({
        settlement_status: 'final',
        settled_at: '2027-01-30T02:00:00.000Z',
        billable_revenue: 22800,
        final_billable_revenue: 21000,
      }),
      'USD',
    );
    expect(s).toMatch(/^Billed \$21,000\.00 for win_back/);
    expect(s).toMatch(/Final since 2027-01-30: it no longer changes\.$/);
  });

  it('given a settled month whose final figure is 0, when explained, then it is not billed', () => {
    const r = report({
      settlement_status: 'final',
      settled_at: '2027-01-30T02:00:00.000Z',
      lift: 1,
      interval: { low: -1, high: 3 },
      billable_revenue: 0,
      final_billable_revenue: 0,
    });
    expect(billedAmount(r)).toBe(0);
    expect(whyBilled(r, 'USD')).toMatch(/^Not billed .* includes zero/);
  });

  it('given a currency Intl does not know, when explained, then the code follows the amount', () => {
    expect(whyBilled(report(), 'ZZZ')).toMatch(/^Billed (ZZZ\s?22,800\.00|22800\.00 ZZZ)/);
  });
});
