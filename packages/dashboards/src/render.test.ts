import { describe, expect, it } from 'vitest';
import { churnBins } from './bins.js';
import { renderDashboard } from './render.js';
import { REPORT_NAMES, type ReportByName } from './reports.js';

/** The body rows of the table captioned `caption` in `html`, cells as text. */
function table(html: string, caption: string): string[][] {
  const start = html.indexOf(`<caption>${caption}</caption>`);
  if (start < 0) throw new Error(`no table captioned ${caption}`);
  const body = /<tbody>(.*?)<\/tbody>/.exec(html.slice(start))?.[1] ?? '';
  return [...body.matchAll(/<tr>(.*?)<\/tr>/g)].map((m) =>
    [...m[1]!.matchAll(/<t[hd][^>]*>(.*?)<\/t[hd]>/g)].map((c) => c[1]!),
  );
}

const FIXTURES: ReportByName = {
  'lifecycle-mix': {
    report: 'lifecycle-mix',
    points: [
      {
        as_of: '2026-11-01T02:00:00.000Z',
        customers: { Stable: 60, Slowing: 20, Overdue: 10, Lapsed: 10 },
        total: 100,
      },
      {
        as_of: '2026-11-02T02:00:00.000Z',
        customers: { Stable: 55, Slowing: 25, Overdue: 8, Lapsed: 12 },
        total: 100,
      },
    ],
  },
  'churn-risk': {
    report: 'churn-risk',
    scored_at: '2026-11-02T02:00:00.000Z',
    customers: 10,
    mean: 0.31,
    bins: churnBins(
      new Map([
        [1, 6],
        [11, 3],
        [21, 1],
      ]),
    ),
  },
  'cohort-retention': {
    report: 'cohort-retention',
    cohorts: [
      { cohort: '2026-09', customers: 8, active: [8, 2, 1] },
      { cohort: '2026-10', customers: 4, active: [4, 1] },
    ],
  },
  'value-distribution': {
    report: 'value-distribution',
    currency: 'EUR',
    scored_at: '2026-11-02T02:00:00.000Z',
    revenue: {
      customers: 3,
      total: 57,
      bins: [
        { low: 0, high: 1, customers: 0 },
        { low: 1, high: 2, customers: 1 },
        { low: 2, high: 5, customers: 0 },
        { low: 5, high: 10, customers: 0 },
        { low: 10, high: 20, customers: 0 },
        { low: 20, high: 50, customers: 2 },
      ],
    },
    lifetime_value: {
      customers: 3,
      total: 90,
      bins: [
        { low: 0, high: 1, customers: 0 },
        { low: 1, high: 2, customers: 0 },
        { low: 2, high: 5, customers: 1 },
        { low: 5, high: 10, customers: 0 },
        { low: 10, high: 20, customers: 0 },
        { low: 20, high: 50, customers: 1 },
        { low: 50, high: 100, customers: 1 },
      ],
    },
  },
  'campaign-funnel': {
    report: 'campaign-funnel',
    currency: 'USD',
    types: [
      {
        campaign_type: 'win_back',
        decided: 129,
        held_out: 5,
        not_sent: 34,
        treated: 90,
        sent: 82,
        failed: 8,
        attributed_orders: 9,
        attributed_revenue: 450.25,
      },
    ],
  },
  lift: {
    report: 'lift',
    currency: 'USD',
    months: [
      {
        campaign_type: 'win_back',
        period_start: '2026-10-01T00:00:00.000Z',
        period_end: '2026-11-01T00:00:00.000Z',
        treated_customers: 1900,
        holdout_customers: 100,
        lift: 12,
        interval: { low: 3.1, high: 20.9 },
        p_value: 0.004,
        mde: 9.5,
        incremental_revenue: 22800,
        billable_revenue: 22800,
        settlement_status: 'provisional',
        settles_at: '2026-12-31T00:00:00.000Z',
        settled_at: null,
        final_billable_revenue: null,
        billed: true,
        why: 'Billed $22,800.00 for win_back in October 2026: because.',
      },
    ],
  },
  'model-fit': {
    report: 'model-fit',
    fits: [
      {
        as_of: '2026-11-02T02:00:00.000Z',
        model: 'bgnbd-gg',
        converged: true,
        log_likelihood: -9582.4,
        customers: 2357,
        repeat_customers: 1000,
        fallback_reason: null,
        bgnbd: { r: 0.2426, alpha: 4.414, a: 0.793, b: 2.426 },
        gamma_gamma: { p: 6.25, q: 3.74, gamma: 15.44 },
      },
    ],
  },
};

describe('renderDashboard', () => {
  it.each(REPORT_NAMES)(
    'given the %s fixture, when rendered, then a labelled section with an image per plot and its data table',
    (name) => {
      const html = renderDashboard(name, FIXTURES[name] as never);
      expect(html).toMatch(
        new RegExp(
          `^<section class="hf-dashboard" aria-labelledby="hf-${name}-heading"><h2 id="hf-${name}-heading">`,
        ),
      );
      const svgs = html.match(/<svg /g) ?? [];
      expect(svgs.length).toBeGreaterThan(0);
      expect((html.match(/role="img"/g) ?? []).length).toBe(svgs.length);
      expect((html.match(/<summary>Data table<\/summary>/g) ?? []).length).toBe(svgs.length);
      // Ids are unique on the page.
      const ids = [...html.matchAll(/ id="([^"]+)"/g)].map((m) => m[1]);
      expect(new Set(ids).size).toBe(ids.length);
    },
  );

  it('given the churn fixture, when rendered, then the histogram table shows each bin’s customers', () => {
    const rows = table(renderDashboard('churn-risk', FIXTURES['churn-risk']), 'Customers by churn risk');
    expect(rows).toHaveLength(20);
    expect(rows[0]).toEqual(['0.00–0.05', '6']);
    expect(rows[10]).toEqual(['0.50–0.55', '3']);
    expect(rows[19]).toEqual(['0.95–1.00', '1']);
  });

  it('given the cohort fixture, when rendered, then each heat-map cell is the share of its cohort', () => {
    const rows = table(
      renderDashboard('cohort-retention', FIXTURES['cohort-retention']),
      'Share of each monthly cohort ordering again, by month since the first order',
    );
    expect(rows).toEqual([
      ['2026-09', '100.0%', '25.0%', '12.5%'],
      ['2026-10', '100.0%', '25.0%', '–'],
    ]);
  });

  it('given the lifecycle fixture, when rendered, then the latest mix is stated and tabled per recompute', () => {
    const html = renderDashboard('lifecycle-mix', FIXTURES['lifecycle-mix']);
    expect(html).toContain('Stable 55 (55.0%), Slowing 25 (25.0%), Overdue 8 (8.0%), Lapsed 12 (12.0%)');
    expect(table(html, 'Customers per lifecycle state, per recompute')).toEqual([
      ['2026-11-01', '60', '20', '10', '10'],
      ['2026-11-02', '55', '25', '8', '12'],
    ]);
  });

  it('given the value fixture, when rendered, then money is in the reporting currency', () => {
    const html = renderDashboard('value-distribution', FIXTURES['value-distribution']);
    expect(table(html, 'Customers by lifetime value (EUR)').at(-1)).toEqual(['€50.00–€100.00', '1']);
  });

  it('given the lift fixture, when rendered, then lift, interval, MDE, billable and why per month', () => {
    const html = renderDashboard('lift', FIXTURES.lift);
    expect(table(html, 'Lift, minimum detectable effect and billing per type and month')).toEqual([
      [
        '2026-10',
        'win_back',
        '1,900',
        '100',
        '$12.00',
        '$3.10 to $20.90',
        '$9.50',
        '$22,800.00',
        'provisional',
        'Billed $22,800.00 for win_back in October 2026: because.',
      ],
    ]);
  });

  it('given the funnel and model fixtures, when rendered, then their tables carry the figures', () => {
    expect(
      table(renderDashboard('campaign-funnel', FIXTURES['campaign-funnel']), 'Decisions per type'),
    ).toEqual([['win_back', '129', '5', '34', '90', '82', '8', '9', '$450.25']]);
    expect(table(renderDashboard('model-fit', FIXTURES['model-fit']), 'Fits, newest first')[0]).toEqual([
      '2026-11-02',
      'bgnbd-gg',
      'yes',
      '-9582.4',
      '2,357',
      '1,000',
      '0.2426',
      '4.414',
      '0.793',
      '2.426',
      '6.25',
      '3.74',
      '15.44',
      '–',
    ]);
  });

  it('given empty reports, when rendered, then each says why there is nothing to show, with no plot', () => {
    const empty: ReportByName = {
      'lifecycle-mix': { report: 'lifecycle-mix', points: [] },
      'churn-risk': {
        report: 'churn-risk',
        scored_at: null,
        customers: 0,
        mean: null,
        bins: churnBins(new Map()),
      },
      'cohort-retention': { report: 'cohort-retention', cohorts: [] },
      'value-distribution': {
        report: 'value-distribution',
        currency: 'USD',
        scored_at: null,
        revenue: { customers: 0, total: 0, bins: [] },
        lifetime_value: { customers: 0, total: 0, bins: [] },
      },
      'campaign-funnel': { report: 'campaign-funnel', currency: 'USD', types: [] },
      lift: { report: 'lift', currency: 'USD', months: [] },
      'model-fit': { report: 'model-fit', fits: [] },
    };
    for (const name of REPORT_NAMES) {
      const html = renderDashboard(name, empty[name] as never);
      expect(html).not.toContain('<svg');
      expect(html).toMatch(/<p>No [^<]+<\/p>/);
    }
  });

  it('given a campaign type that is markup, when rendered, then it is escaped', () => {
    const html = renderDashboard('campaign-funnel', {
      ...FIXTURES['campaign-funnel'],
      types: [{ ...FIXTURES['campaign-funnel'].types[0]!, campaign_type: '<script>x</script>' }],
    });
    expect(html).not.toContain('<script>');
  });
});
