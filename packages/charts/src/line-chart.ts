import { legend, xAxis, yAxis, type Plot } from './axes.js';
import { escapeXml, px } from './escape.js';
import { dataTable, formatNumber, HEIGHT, svgFrame, WIDTH, type Chart, type ChartText } from './figure.js';
import { seriesColor } from './palette.js';
import { linearScale, niceTicks } from './scale.js';

/** One line over the x categories; null where there is no value (the line breaks there). */
export interface LineSeries {
  readonly name: string;
  readonly values: readonly (number | null)[];
  /** An interval around each value (drawn as a whisker; null where there is none). */
  readonly intervals?: readonly ({ low: number; high: number } | null)[];
  readonly color?: string;
}

export interface LineChartSpec extends ChartText {
  /** The x positions, in order (periods over time: months, recompute dates). */
  readonly categories: readonly string[];
  readonly series: readonly LineSeries[];
  readonly xLabel: string;
  readonly yLabel: string;
  /**
   * Stacked areas instead of lines: each series is drawn on top of the ones before it, so the top edge
   * is the total (a mix over time). Missing values count as 0.
   */
  readonly stacked?: boolean;
  /** Horizontal reference lines (a zero line under a lift, a target). */
  readonly references?: readonly { readonly value: number; readonly label: string }[];
  readonly format?: (v: number) => string;
  /** The y-axis tick labels' format (default `format`): money ticks read better without cents. */
  readonly tickFormat?: (v: number) => string;
}

/**
 * Lines (or stacked areas) over ordered categories, with optional intervals and reference lines. Every
 * point carries a <title>; the table has a column per series (and its interval's bounds, when any).
 */
export function lineChart(spec: LineChartSpec): Chart {
  const format = spec.format ?? formatNumber;
  const plot: Plot = { left: 84, right: WIDTH - 16, top: 24, bottom: HEIGHT - 44 };
  const n = spec.categories.length;
  const stacks = spec.stacked ? cumulative(spec.series, n) : null;
  const extent: number[] = [0, ...(spec.references ?? []).map((r) => r.value)];
  for (const [si, s] of spec.series.entries())
    for (let i = 0; i < n; i++) {
      const v = stacks ? stacks[si]![i]! : s.values[i];
      if (v !== null && v !== undefined) extent.push(v);
      const iv = s.intervals?.[i];
      if (iv) extent.push(iv.low, iv.high);
    }
  const finite = extent.filter(Number.isFinite);
  const ticks = niceTicks(Math.min(...finite), Math.max(...finite));
  const y = linearScale(ticks[0]!, ticks[ticks.length - 1]!, plot.bottom, plot.top);
  const step = (plot.right - plot.left) / Math.max(1, n);
  const xAt = (i: number) => plot.left + step * (i + 0.5);

  const marks = spec.series
    .map((s, si) => {
      const color = seriesColor(si, s.color);
      // Several series with intervals at one x: each is shifted a little so the whiskers stay apart.
      const shift =
        spec.stacked || !spec.series.some((o) => o.intervals) ? 0 : (si - (spec.series.length - 1) / 2) * 6;
      const x = (i: number) => xAt(i) + shift;
      if (stacks) {
        const top = stacks[si]!;
        const base = si === 0 ? new Array<number>(n).fill(0) : stacks[si - 1]!;
        const upper = top.map((v, i) => `${px(x(i))},${px(y(v))}`);
        const lower = base.map((v, i) => `${px(x(i))},${px(y(v))}`).reverse();
        const area =
          n > 0
            ? `<polygon points="${[...upper, ...lower].join(' ')}" fill="${color}" fill-opacity="0.85"/>`
            : '';
        const points = top
          .map((v, i) =>
            point(
              x(i),
              y(v),
              color,
              `${spec.categories[i]}, ${s.name}: ${format(v - base[i]!)}`,
              v - base[i]!,
            ),
          )
          .join('');
        return `<g>${area}${points}</g>`;
      }
      const segments: string[][] = [[]];
      s.values.forEach((v, i) => {
        if (v === null || !Number.isFinite(v)) segments.push([]);
        else segments[segments.length - 1]!.push(`${px(x(i))},${px(y(v))}`);
      });
      const lines = segments
        .filter((seg) => seg.length > 1)
        .map((seg) => `<polyline points="${seg.join(' ')}" fill="none" stroke="${color}" stroke-width="2"/>`)
        .join('');
      const whiskers = (s.intervals ?? [])
        .map((iv, i) =>
          iv && i < n
            ? `<line x1="${px(x(i))}" x2="${px(x(i))}" y1="${px(y(iv.low))}" y2="${px(y(iv.high))}" stroke="${color}" stroke-width="1.5"/>` +
              `<line x1="${px(x(i) - 4)}" x2="${px(x(i) + 4)}" y1="${px(y(iv.low))}" y2="${px(y(iv.low))}" stroke="${color}"/>` +
              `<line x1="${px(x(i) - 4)}" x2="${px(x(i) + 4)}" y1="${px(y(iv.high))}" y2="${px(y(iv.high))}" stroke="${color}"/>`
            : '',
        )
        .join('');
      const points = s.values
        .map((v, i) => {
          if (v === null || !Number.isFinite(v)) return '';
          const iv = s.intervals?.[i];
          const range = iv ? ` (${format(iv.low)} to ${format(iv.high)})` : '';
          return point(x(i), y(v), color, `${spec.categories[i]}, ${s.name}: ${format(v)}${range}`, v);
        })
        .join('');
      return `<g>${lines}${whiskers}${points}</g>`;
    })
    .join('');
  const refs = (spec.references ?? [])
    .map(
      (r) =>
        `<line x1="${plot.left}" x2="${plot.right}" y1="${px(y(r.value))}" y2="${px(y(r.value))}" stroke="#333" stroke-dasharray="4 3"/>` +
        `<text x="${plot.right - 4}" y="${px(y(r.value) - 4)}" text-anchor="end" fill="#333">${escapeXml(r.label)}</text>`,
    )
    .join('');
  const body =
    yAxis(plot, ticks, y, spec.tickFormat ?? format, spec.yLabel) +
    `<g aria-hidden="true">${refs}</g>` +
    marks +
    xAxis(plot, spec.categories, xAt, spec.xLabel, HEIGHT) +
    legend(
      plot,
      spec.series.map((s) => s.name),
      spec.series.map((s) => s.color),
    );

  const header = [spec.xLabel];
  for (const s of spec.series) {
    header.push(s.name);
    if (s.intervals) header.push(`${s.name}: 95% low`, `${s.name}: 95% high`);
  }
  const cell = (v: number | null | undefined) => (v === null || v === undefined ? '–' : format(v));
  const rows = spec.categories.map((c, i): [string, ...string[]] => {
    const cells: string[] = [];
    for (const s of spec.series) {
      cells.push(cell(s.values[i]));
      if (s.intervals) cells.push(cell(s.intervals[i]?.low), cell(s.intervals[i]?.high));
    }
    return [c, ...cells];
  });
  return { svg: svgFrame(spec, body), table: dataTable(spec.title, header, rows) };
}

function point(cx: number, cy: number, color: string, label: string, value: number): string {
  return `<circle cx="${px(cx)}" cy="${px(cy)}" r="3.5" fill="${color}" data-value="${value}"><title>${escapeXml(label)}</title></circle>`;
}

/** The running totals of the series at each x (missing values count as 0): the top edge of each stack. */
function cumulative(series: readonly LineSeries[], n: number): number[][] {
  const out: number[][] = [];
  series.forEach((s, si) => {
    out.push(Array.from({ length: n }, (_, i) => (si === 0 ? 0 : out[si - 1]![i]!) + (s.values[i] ?? 0)));
  });
  return out;
}
