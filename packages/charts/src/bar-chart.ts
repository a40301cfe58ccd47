import { legend, xAxis, yAxis, type Plot } from './axes.js';
import { escapeXml, px } from './escape.js';
import { dataTable, formatNumber, HEIGHT, svgFrame, WIDTH, type Chart, type ChartText } from './figure.js';
import { seriesColor } from './palette.js';
import { linearScale, zeroBasedTicks } from './scale.js';

/** One series of bars: a value per category. */
export interface BarSeries {
  readonly name: string;
  readonly values: readonly number[];
  readonly color?: string;
}

export interface BarChartSpec extends ChartText {
  /** The categories along x, in order (bins of a histogram, campaign types…). */
  readonly categories: readonly string[];
  /** One or more series; several are drawn side by side in each category. */
  readonly series: readonly BarSeries[];
  readonly xLabel: string;
  readonly yLabel: string;
  readonly format?: (v: number) => string;
  /** The y-axis tick labels' format (default `format`): money ticks read better without cents. */
  readonly tickFormat?: (v: number) => string;
}

/**
 * Bars (a histogram when the categories are bins): one group per category, one bar per series,
 * starting at 0. Each bar carries its own <title> ("category, series: value"); the table repeats
 * every value.
 *
 * @example
 * barChart({ id: 'risk', title: 'Churn risk', description: '…', categories: ['0–0.5', '0.5–1'],
 *   series: [{ name: 'Customers', values: [12, 3] }], xLabel: 'Churn risk', yLabel: 'Customers' });
 */
export function barChart(spec: BarChartSpec): Chart {
  const format = spec.format ?? formatNumber;
  const plot: Plot = { left: 84, right: WIDTH - 16, top: 24, bottom: HEIGHT - 44 };
  const ticks = zeroBasedTicks(spec.series.flatMap((s) => s.values));
  const y = linearScale(ticks[0]!, ticks[ticks.length - 1]!, plot.bottom, plot.top);
  const n = Math.max(1, spec.categories.length);
  const band = (plot.right - plot.left) / n;
  const groupWidth = band * 0.8;
  const barWidth = groupWidth / Math.max(1, spec.series.length);
  const centre = (i: number) => plot.left + band * (i + 0.5);
  const bars = spec.series
    .map((s, si) => {
      const fill = seriesColor(si, s.color);
      return spec.categories
        .map((c, i) => {
          const v = s.values[i] ?? 0;
          const x = centre(i) - groupWidth / 2 + si * barWidth;
          const top = Math.min(y(v), y(0));
          const h = Math.abs(y(v) - y(0));
          const label = `${c}, ${s.name}: ${format(v)}`;
          return `<rect x="${px(x)}" y="${px(top)}" width="${px(Math.max(0.5, barWidth - 1))}" height="${px(h)}" fill="${fill}" data-value="${v}"><title>${escapeXml(label)}</title></rect>`;
        })
        .join('');
    })
    .join('');
  const body =
    yAxis(plot, ticks, y, spec.tickFormat ?? format, spec.yLabel) +
    `<g>${bars}</g>` +
    xAxis(plot, spec.categories, centre, spec.xLabel, HEIGHT) +
    legend(
      plot,
      spec.series.map((s) => s.name),
      spec.series.map((s) => s.color),
    );
  const table = dataTable(
    spec.title,
    [spec.xLabel, ...spec.series.map((s) => s.name)],
    spec.categories.map((c, i) => [c, ...spec.series.map((s) => format(s.values[i] ?? 0))]),
  );
  return { svg: svgFrame(spec, body), table };
}
