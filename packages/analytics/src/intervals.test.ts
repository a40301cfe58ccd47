/**
 * Intervals of each customer's expected purchases: the short version of `npm run bench -- intervals`
 * (fewer customers, one replication), the covariance from the observed information, and the atom
 * rule of the quantiles.
 */
import { describe, expect, it } from 'vitest';
import { fitBgNbd } from './bgnbd.js';
import { intervalCoverage } from './interval-coverage.js';
import {
  cholesky,
  intervalDraws,
  intervalOf,
  logParameterCovariance,
  populationShare,
  purchaseIntervals,
  valueBounds,
} from './intervals.js';
import { fitParetoNbd, groupTriplets } from './pareto-nbd.js';
import { simulateParetoNbd } from './pareto-nbd-simulation.js';
import { mulberry32 } from './prng.js';
import { variates } from './random-variates.js';

describe('purchaseIntervals', () => {
  it('given 1,500 customers simulated from CDNOW’s Pareto/NBD fit, then the 90% intervals cover 90% ± 3 of their true expected purchases', () => {
    const r = intervalCoverage({
      model: 'pareto-nbd',
      params: { r: 0.55, alpha: 10.6, s: 0.61, beta: 11.7 },
      customers: 1500,
      minT: 26,
      maxT: 39,
      horizon: 52,
      seed: 11,
    });
    console.info('interval coverage (short)', JSON.stringify(r));
    expect(r.fitConverged).toBe(true);
    expect(r.parameterUncertainty).toBe(true);
    // ±3 points: about 4 standard errors at 1,500 customers (the bench holds 15,000 to ±2).
    expect(Math.abs(r.atomAdjustedCoverage - 0.9)).toBeLessThan(0.03);
    // The lifetime value's interval, spend drawn from its Gamma-Gamma posterior, covers the same.
    expect(Math.abs(r.valueCoverage - 0.9)).toBeLessThan(0.03);
  }, 60_000); // seconds on an idle machine; generous for a loaded one

  it('given a spend model, then the purchase interval is unchanged and the value interval wider where few purchases show the spend', () => {
    const params = { r: 0.55, alpha: 10.6, s: 0.61, beta: 11.7 };
    const sim = simulateParetoNbd({ params, customers: 1000, minT: 26, maxT: 39, holdout: 0, seed: 8 });
    const g = groupTriplets(sim.map((c) => ({ x: c.x, tx: c.tx, T: c.T })));
    const model = { model: 'pareto-nbd' as const, params };
    const histories = [2, 20].map((x) => ({ x, tx: 30, T: 32 }));
    // One call per history: the spend draws come after each history's purchase draws in the stream.
    const plain = histories.map((h) => purchaseIntervals(model, g, [h], 52, { seed: 3 }).intervals[0]!);
    const spend = histories.map(
      (h) => purchaseIntervals(model, g, [h], 52, { seed: 3, spend: { p: 6.25, q: 3.74 } }).intervals[0]!,
    );
    const relativeWidth = (low: number, high: number) => (high - low) / (high + low);
    histories.forEach((_, i) => {
      expect(plain[i]!.valueLow).toBe(plain[i]!.low);
      expect(plain[i]!.valueHigh).toBe(plain[i]!.high);
      expect(spend[i]!.low).toBe(plain[i]!.low);
      expect(spend[i]!.high).toBe(plain[i]!.high);
    });
    // x = 2: the spend per purchase is uncertain (its ratio to the mean has sd 1/√(px + q − 2) ≈ 0.26),
    // both ends move out. x = 20: sd ≈ 0.09 beside a purchase interval of a factor 7: the width moves
    // by less than the 500 draws' own noise.
    expect(spend[0]!.valueLow).toBeLessThan(spend[0]!.low);
    expect(spend[0]!.valueHigh).toBeGreaterThan(spend[0]!.high);
    const width = (low: number, high: number) => high - low;
    expect(
      Math.abs(width(spend[1]!.valueLow, spend[1]!.valueHigh) / width(spend[1]!.low, spend[1]!.high) - 1),
    ).toBeLessThan(0.05);
    // Spend per purchase ÷ its mean is (px + q − 1)/Gamma(px + q): its spread falls like 1/√(px + q).
    const extra = spend.map(
      (iv, i) => relativeWidth(iv.valueLow, iv.valueHigh) - relativeWidth(plain[i]!.low, plain[i]!.high),
    );
    expect(extra[1]!).toBeLessThan(extra[0]!);
    // Where the spend's mean does not exist (px + q ≤ 1), the value interval is the purchase interval.
    const none = purchaseIntervals(model, g, [{ x: 0, tx: 0, T: 32 }], 52, {
      seed: 3,
      spend: { p: 6, q: 0.9 },
    });
    expect(none.intervals[0]!.valueHigh).toBe(none.intervals[0]!.high);
  });

  it('given the spend fit’s parameter covariance, then the purchase interval is unchanged, the value interval widens most where the population’s share of the spend is large, and valueBounds runs between the ends', () => {
    // Given: a Pareto/NBD account and a Gamma-Gamma fit known to a log-scale sd of 0.5 on each of p, q,
    // γ (a small account's: large enough to show beside a purchase interval spanning a factor 7).
    const params = { r: 0.55, alpha: 10.6, s: 0.61, beta: 11.7 };
    const sim = simulateParetoNbd({ params, customers: 1000, minT: 26, maxT: 39, holdout: 0, seed: 8 });
    const g = groupTriplets(sim.map((c) => ({ x: c.x, tx: c.tx, T: c.T })));
    const model = { model: 'pareto-nbd' as const, params };
    const point = { p: 6.25, q: 3.74, gamma: 15.44 };
    const uncertain = {
      ...point,
      logCovariance: [
        [0.25, 0, 0],
        [0, 0.25, 0],
        [0, 0, 0.25],
      ],
    };
    const histories = [
      { x: 0, tx: 0, T: 32 },
      { x: 20, tx: 30, T: 32 },
    ];
    // When
    // One call per history (as the recompute seeds each history's draws): the spend draws come after
    // each history's purchase draws in the stream.
    const each = (spend: typeof uncertain | typeof point, parameterUncertainty = true) =>
      histories.map(
        (h) => purchaseIntervals(model, g, [h], 52, { seed: 3, spend, parameterUncertainty }).intervals[0]!,
      );
    const without = each(point);
    const withFit = each(uncertain);
    const off = each(uncertain, false);
    // Then: the purchase draws are those of the point fit (the spend parameters have a stream of their own).
    withFit.forEach((iv, i) => {
      expect(iv.low).toBe(without[i]!.low);
      expect(iv.high).toBe(without[i]!.high);
    });
    const width = (low: number, high: number) => high - low;
    // A frequent buyer at u = 1 carries γ's uncertainty where the customer's own spend adds only sd
    // 0.09: markedly wider. At u = 0 their own m_x dominates and p nearly cancels: narrower than that.
    const [oneTime, frequent] = withFit as [(typeof withFit)[0], (typeof withFit)[0]];
    expect(width(frequent.valueLow, frequent.valueHigh)).toBeGreaterThan(
      1.1 * width(without[1]!.valueLow, without[1]!.valueHigh),
    );
    expect(width(frequent.valueLowOwn, frequent.valueHighOwn)).toBeLessThan(
      width(frequent.valueLow, frequent.valueHigh),
    );
    // x = 0: no own spend, one end.
    expect(oneTime.valueLowOwn).toBe(oneTime.valueLow);
    expect(oneTime.valueHighOwn).toBe(oneTime.valueHigh);
    // valueBounds: the ends at u = 1 and u = 0, the midpoint halfway.
    expect(valueBounds(frequent, 1)).toEqual({ low: frequent.valueLow, high: frequent.valueHigh });
    expect(valueBounds(frequent, 0)).toEqual({ low: frequent.valueLowOwn, high: frequent.valueHighOwn });
    expect(valueBounds(frequent, 0.5).high).toBeCloseTo((frequent.valueHigh + frequent.valueHighOwn) / 2, 12);
    expect(populationShare(15.44, 0, 40)).toBe(1);
    expect(populationShare(15.44, 20, 40)).toBeCloseTo(15.44 / (15.44 + 800), 12);
    // Customer-only uncertainty draws no spend parameters either.
    expect(intervalDraws(model, g, { spend: uncertain, parameterUncertainty: false }).spendModels).toBeNull();
    expect(off[1]!.valueLowOwn).toBe(off[1]!.valueLow);
    expect(off[1]!.valueHigh).toBe(without[1]!.valueHigh);
  });

  it('given one overflowed parameter vector among the draws (a NaN P(alive), or a spend draw with an infinite shape), then the history’s interval is NaN, never a finite value picked from an undefined order', () => {
    const params = { r: 0.55, alpha: 10.6, s: 0.61, beta: 11.7 };
    const sim = simulateParetoNbd({ params, customers: 300, minT: 26, maxT: 39, holdout: 0, seed: 8 });
    const g = groupTriplets(sim.map((c) => ({ x: c.x, tx: c.tx, T: c.T })));
    const model = { model: 'pareto-nbd' as const, params };
    const h = { x: 3, tx: 20, T: 32 };
    const base = intervalDraws(model, g, { parameterUncertainty: false });
    const fine = intervalOf(base, h, 52, variates(mulberry32(1)));
    expect([fine.low, fine.high].every(Number.isFinite)).toBe(true);
    // A purchase vector with r = ∞ (its P(alive) is NaN) as the 4th of 20.
    const models = base.models.map((m, k) =>
      k === 3 ? { model: 'pareto-nbd' as const, params: { ...params, r: Infinity } } : m,
    );
    const purchase = intervalOf({ ...base, models }, h, 52, variates(mulberry32(1)));
    expect(purchase.low).toBeNaN();
    expect(purchase.high).toBeNaN();
    // A spend vector with p = ∞ (its Gamma shape q + p·x is infinite) as the 4th of 20.
    const spend = { p: 6.25, q: 3.74, gamma: 15.44 };
    const spendModels = Array.from({ length: base.models.length }, (_, k) =>
      k === 3 ? { ...spend, p: Infinity } : spend,
    );
    const value = intervalOf({ ...base, spend, spendModels }, h, 52, variates(mulberry32(1)));
    expect(Number.isFinite(value.low)).toBe(true); // the purchase interval is not touched
    expect(value.valueHigh).toBeNaN();
  });

  it('given the same for BG/NBD, then the same', () => {
    const r = intervalCoverage({
      model: 'bgnbd',
      params: { r: 0.243, alpha: 4.414, a: 0.793, b: 2.426 },
      customers: 1500,
      minT: 26,
      maxT: 39,
      horizon: 52,
      seed: 12,
    });
    expect(Math.abs(r.atomAdjustedCoverage - 0.9)).toBeLessThan(0.03);
  }, 60_000); // seconds on an idle machine; generous for a loaded one

  it('given a fit, then the covariance is the inverse information: positive definite, and tighter with 4× the customers', () => {
    const params = { r: 0.55, alpha: 10.6, s: 0.61, beta: 11.7 };
    const sizes = [500, 2000].map((customers) => {
      const sim = simulateParetoNbd({ params, customers, minT: 26, maxT: 39, holdout: 0, seed: 5 });
      const g = groupTriplets(sim.map((c) => ({ x: c.x, tx: c.tx, T: c.T })));
      const fit = fitParetoNbd(g);
      const cov = logParameterCovariance({ model: 'pareto-nbd', params: fit.params }, g);
      expect(cov).not.toBeNull();
      expect(cholesky(cov!)).not.toBeNull();
      return cov!;
    });
    // Standard errors shrink like 1/√n: variances by about 4 (between 2 and 8 for sampling noise).
    for (let i = 0; i < 4; i++) {
      const ratio = sizes[0]![i]![i]! / sizes[1]![i]![i]!;
      expect(ratio).toBeGreaterThan(2);
      expect(ratio).toBeLessThan(8);
    }
  });

  it('given a customer almost surely lapsed, then [0, 0]; a fresh frequent buyer, then an interval around the point forecast', () => {
    const params = { r: 0.55, alpha: 10.6, s: 0.61, beta: 11.7 };
    const sim = simulateParetoNbd({ params, customers: 800, minT: 26, maxT: 39, holdout: 0, seed: 6 });
    const g = groupTriplets(sim.map((c) => ({ x: c.x, tx: c.tx, T: c.T })));
    const fit = fitParetoNbd(g);
    const lapsed = { x: 30, tx: 1, T: 200 };
    const active = { x: 20, tx: 38.9, T: 39 };
    const { intervals } = purchaseIntervals(
      { model: 'pareto-nbd', params: fit.params },
      g,
      [lapsed, active],
      52,
    );
    expect(intervals[0]).toMatchObject({ low: 0, high: 0 });
    expect(intervals[0]!.pDead).toBeGreaterThan(0.99);
    expect(intervals[1]!.pDead).toBeLessThan(0.05);
    expect(intervals[1]!.low).toBeGreaterThan(5);
    expect(intervals[1]!.high).toBeGreaterThan(intervals[1]!.low * 1.5);
  });

  it('given a BG/NBD fit run off to its limit (nobody drops out), then no covariance and customer-only intervals', () => {
    const rows = Array.from({ length: 300 }, (_, i) => ({
      x: 1 + (i % 6),
      tx: 20 + (i % 10),
      T: 20 + (i % 10),
    }));
    const g = groupTriplets(rows.map((r) => ({ x: r.x, tx: r.tx, T: r.T })));
    const fit = fitBgNbd({ frequency: g.x, recency: g.tx, T: g.T, weight: g.weight, customers: g.customers });
    expect(fit.params.b).toBeGreaterThan(1e3);
    const model = { model: 'bgnbd' as const, params: fit.params };
    expect(logParameterCovariance(model, g)).toBeNull();
    const { intervals, parameterUncertainty } = purchaseIntervals(model, g, [rows[0]!], 52);
    expect(parameterUncertainty).toBe(false);
    expect(Number.isFinite(intervals[0]!.high)).toBe(true);
  });

  it('given a non-positive-definite matrix, then no Cholesky factor', () => {
    expect(
      cholesky([
        [1, 2],
        [2, 1],
      ]),
    ).toBeNull();
    expect(
      cholesky([
        [4, 2],
        [2, 3],
      ]),
    ).toEqual([
      [2, 0],
      [1, Math.sqrt(2)],
    ]);
  });
});
