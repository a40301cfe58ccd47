import { escapeXml, px } from './escape.js';
import { seriesColor } from './palette.js';

/** The plotting area inside the SVG. */
export interface Plot {
  readonly left: number;
  readonly right: number;
  readonly top: number;
  readonly bottom: number;
}

/** Horizontal grid lines and their labels at `ticks`, and the y-axis title. */
export function yAxis(
  plot: Plot,
  ticks: readonly number[],
  y: (v: number) => number,
  format: (v: number) => string,
  label: string,
): string {
  const lines = ticks
    .map(
      (t) =>
        `<line x1="${plot.left}" x2="${plot.right}" y1="${px(y(t))}" y2="${px(y(t))}" stroke="#d0d0d0"/>` +
        `<text x="${plot.left - 6}" y="${px(y(t) + 4)}" text-anchor="end" fill="#333">${escapeXml(format(t))}</text>`,
    )
    .join('');
  const mid = (plot.top + plot.bottom) / 2;
  const title = `<text transform="translate(14 ${px(mid)}) rotate(-90)" text-anchor="middle" fill="#333">${escapeXml(label)}</text>`;
  return `<g aria-hidden="true">${lines}${title}</g>`;
}

/**
 * Category labels under the plot at their centres `x(i)`: every one when they fit, else every k-th
 * (the first and the last always), and the x-axis title.
 */
export function xAxis(
  plot: Plot,
  labels: readonly string[],
  x: (i: number) => number,
  label: string,
  height: number,
): string {
  const room = (plot.right - plot.left) / Math.max(1, labels.length);
  const longest = Math.max(1, ...labels.map((l) => l.length));
  const every = Math.max(1, Math.ceil((longest * 7 + 6) / room));
  const last = labels.length - 1;
  // Every k-th label, and the last one, but no regular label so close to the last that they overlap.
  const shown = (i: number) => i === last || (i % every === 0 && last - i >= every);
  const text = labels
    .map((l, i) => {
      if (!shown(i)) return '';
      // A label wider than its room at either end is anchored inside the plot, not cut by the edge.
      const half = (l.length * 7) / 2;
      const anchor =
        x(i) - half < plot.left - 40 ? 'start' : x(i) + half > plot.right + 12 ? 'end' : 'middle';
      const at = anchor === 'end' ? Math.min(x(i) + room / 2, plot.right + 12) : x(i);
      return `<text x="${px(at)}" y="${plot.bottom + 16}" text-anchor="${anchor}" fill="#333">${escapeXml(l)}</text>`;
    })
    .join('');
  const axis = `<line x1="${plot.left}" x2="${plot.right}" y1="${plot.bottom}" y2="${plot.bottom}" stroke="#333"/>`;
  const title = `<text x="${px((plot.left + plot.right) / 2)}" y="${height - 6}" text-anchor="middle" fill="#333">${escapeXml(label)}</text>`;
  return `<g aria-hidden="true">${axis}${text}${title}</g>`;
}

/** A legend along the top: a swatch and the name of each series (omitted for a single series). */
export function legend(
  plot: Plot,
  names: readonly string[],
  colors: readonly (string | undefined)[],
): string {
  if (names.length < 2) return '';
  let x = plot.left;
  const items = names.map((n, i) => {
    const item =
      `<rect x="${px(x)}" y="4" width="10" height="10" fill="${seriesColor(i, colors[i])}"/>` +
      `<text x="${px(x + 14)}" y="13" fill="#333">${escapeXml(n)}</text>`;
    x += 24 + n.length * 7;
    return item;
  });
  return `<g aria-hidden="true">${items.join('')}</g>`;
}
