import { describe, expect, it } from 'vitest';
import { barChart } from './bar-chart.js';
import { escapeXml, safeId } from './escape.js';
import { renderFigure } from './figure.js';
import { heatMap } from './heat-map.js';
import { lineChart } from './line-chart.js';
import { sequentialColor, textColorOn } from './palette.js';
import { niceTicks } from './scale.js';

/** The cells of each body row of an HTML table (row header first). */
function tableRows(html: string): string[][] {
  const body = /<tbody>(.*)<\/tbody>/.exec(html)?.[1] ?? '';
  return [...body.matchAll(/<tr>(.*?)<\/tr>/g)].map((m) =>
    [...m[1]!.matchAll(/<t[hd][^>]*>(.*?)<\/t[hd]>/g)].map((c) => c[1]!),
  );
}
const dataValues = (svg: string): number[] =>
  [...svg.matchAll(/data-value="([^"]+)"/g)].map((m) => Number(m[1]));

describe('niceTicks', () => {
  it('given 0 to 87, when ticked, then round steps of 20 cover the range', () => {
    expect(niceTicks(0, 87)).toEqual([0, 20, 40, 60, 80, 100]);
  });
  it('given a negative minimum, when ticked, then the ticks start below it and pass through 0', () => {
    const ticks = niceTicks(-3.2, 7.9);
    expect(ticks[0]).toBeLessThanOrEqual(-3.2);
    expect(ticks.at(-1)).toBeGreaterThanOrEqual(7.9);
    expect(ticks).toContain(0);
  });
  it('given a flat or empty domain, when ticked, then an axis still exists', () => {
    expect(niceTicks(0, 0)).toEqual([0, 1]);
    expect(niceTicks(5, 5)[0]).toBe(0);
    expect(niceTicks(Number.NaN, 1)).toEqual([0, 1]);
  });
});

describe('escaping', () => {
  it('given a label with markup, when escaped, then no tag or attribute can open', () => {
    expect(escapeXml(`<script>"x" & 'y'</script>`)).toBe(
      '&lt;script&gt;&quot;x&quot; &amp; &#39;y&#39;&lt;/script&gt;',
    );
  });
  it('given an id with spaces and symbols, when made safe, then only id characters remain', () => {
    expect(safeId('churn risk #1')).toBe('churn-risk-1');
    expect(safeId('1st')).toBe('c-1st');
  });
  it('given a category that is markup, when charted, then it appears only escaped', () => {
    const c = barChart({
      id: 'x',
      title: 'T',
      description: 'D',
      categories: ['<img src=x onerror=alert(1)>'],
      series: [{ name: 'n', values: [1] }],
      xLabel: 'x',
      yLabel: 'y',
    });
    expect(c.svg + c.table).not.toContain('<img');
  });
});

describe('barChart', () => {
  const chart = barChart({
    id: 'risk',
    title: 'Customers by churn risk',
    description: 'Histogram',
    categories: ['0–0.5', '0.5–1'],
    series: [{ name: 'Customers', values: [1200, 34] }],
    xLabel: 'Churn risk',
    yLabel: 'Customers',
  });
  it('given two bins, when drawn, then the SVG is an image labelled by its title and description', () => {
    expect(chart.svg).toMatch(/^<svg [^>]*role="img" aria-labelledby="risk-title risk-desc"/);
    expect(chart.svg).toContain('<title id="risk-title">Customers by churn risk</title>');
    expect(chart.svg).toContain('<desc id="risk-desc">Histogram</desc>');
  });
  it('given two bins, when drawn, then there is one bar per value, taller for the larger one', () => {
    expect(dataValues(chart.svg)).toEqual([1200, 34]);
    const heights = [...chart.svg.matchAll(/<rect [^>]*height="([\d.]+)"[^>]*data-value/g)].map((m) =>
      Number(m[1]),
    );
    expect(heights[0]! / heights[1]!).toBeCloseTo(1200 / 34, 0);
  });
  it('given two bins, when drawn, then the table repeats every value under its category', () => {
    expect(tableRows(chart.table)).toEqual([
      ['0–0.5', '1,200'],
      ['0.5–1', '34'],
    ]);
    expect(chart.table).toContain('<caption>Customers by churn risk</caption>');
  });
  it('given a chart, when put in a figure, then the table follows the SVG inside <details>', () => {
    const html = renderFigure(chart);
    expect(html.indexOf('<svg')).toBeLessThan(html.indexOf('<details'));
    expect(html).toContain('<summary>Data table</summary>');
  });
});

describe('lineChart', () => {
  it('given stacked series, when drawn, then each point carries its own value and the top is the total', () => {
    const c = lineChart({
      id: 'mix',
      title: 'Mix',
      description: 'D',
      categories: ['d1', 'd2'],
      series: [
        { name: 'A', values: [3, 4] },
        { name: 'B', values: [1, null] },
      ],
      stacked: true,
      xLabel: 'x',
      yLabel: 'y',
    });
    expect(dataValues(c.svg)).toEqual([3, 4, 1, 0]);
    expect(c.svg).toContain('<title>d1, B: 1</title>');
    expect(tableRows(c.table)).toEqual([
      ['d1', '3', '1'],
      ['d2', '4', '–'],
    ]);
  });
  it('given intervals, when drawn, then the table has each bound and the point names its interval', () => {
    const c = lineChart({
      id: 'lift',
      title: 'Lift',
      description: 'D',
      categories: ['2026-10', '2026-11'],
      series: [{ name: 'win_back', values: [2.5, null], intervals: [{ low: -1, high: 6 }, null] }],
      references: [{ value: 0, label: 'no lift' }],
      xLabel: 'Month',
      yLabel: 'USD',
    });
    expect(c.svg).toContain('<title>2026-10, win_back: 2.5 (-1 to 6)</title>');
    expect(tableRows(c.table)).toEqual([
      ['2026-10', '2.5', '-1', '6'],
      ['2026-11', '–', '–', '–'],
    ]);
  });
});

describe('heatMap', () => {
  const c = heatMap({
    id: 'cohorts',
    title: 'Retention',
    description: 'D',
    rows: ['2026-10', '2026-11'],
    columns: ['0', '1'],
    values: [
      [1, 0.25],
      [1, null],
    ],
    rowLabel: 'Cohort',
    columnLabel: 'Month',
    max: 1,
    format: (v) => `${Math.round(v * 100)}%`,
  });
  it('given a grid with a missing cell, when drawn, then only existing cells are drawn, each with its value', () => {
    expect(dataValues(c.svg)).toEqual([1, 0.25, 1]);
    expect(c.svg).toContain('<title>Cohort 2026-10, Month 1: 25%</title>');
  });
  it('given a grid, when drawn, then the table has the same grid, a dash where no cell exists', () => {
    expect(tableRows(c.table)).toEqual([
      ['2026-10', '100%', '25%'],
      ['2026-11', '100%', '–'],
    ]);
  });
});

describe('colours', () => {
  it('given the ends of the sequential scale, when coloured, then pale and dark blue', () => {
    expect(sequentialColor(0)).toBe('#eff3ff');
    expect(sequentialColor(1)).toBe('#08306b');
    expect(sequentialColor(7)).toBe('#08306b');
  });
  it('given a pale or a dark cell, when its text is coloured, then black on pale and white on dark', () => {
    expect(textColorOn(sequentialColor(0))).toBe('#000000');
    expect(textColorOn(sequentialColor(1))).toBe('#ffffff');
  });
});
