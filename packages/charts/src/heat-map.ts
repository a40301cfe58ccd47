import { escapeXml, px } from './escape.js';
import { dataTable, formatNumber, svgFrame, WIDTH, type Chart, type ChartText } from './figure.js';
import { sequentialColor, textColorOn } from './palette.js';

export interface HeatMapSpec extends ChartText {
  /** Row labels, top to bottom (cohorts). */
  readonly rows: readonly string[];
  /** Column labels, left to right (months since the first purchase). */
  readonly columns: readonly string[];
  /** values[row][column]; null where the cell does not exist (a cohort too young for that month). */
  readonly values: readonly (readonly (number | null)[])[];
  readonly rowLabel: string;
  readonly columnLabel: string;
  /** The value of the darkest colour (default: the largest value). */
  readonly max?: number;
  readonly format?: (v: number) => string;
}

/**
 * A grid of cells coloured by value (pale to dark blue), each printing its value in black or white,
 * whichever contrasts more, and carrying a <title>. The table has the same grid.
 */
export function heatMap(spec: HeatMapSpec): Chart {
  const format = spec.format ?? formatNumber;
  const left = 84;
  const top = 40;
  const cols = Math.max(1, spec.columns.length);
  const cellW = Math.max(18, (WIDTH - left - 8) / cols);
  const cellH = 22;
  const width = left + cellW * cols + 8;
  const height = top + cellH * Math.max(1, spec.rows.length) + 8;
  const all = spec.values.flat().filter((v): v is number => v !== null && Number.isFinite(v));
  const max = spec.max ?? Math.max(0, ...all);
  const showText = cellW >= 30;
  const cells = spec.rows
    .map((r, ri) =>
      spec.columns
        .map((c, ci) => {
          const v = spec.values[ri]?.[ci] ?? null;
          if (v === null) return '';
          const fill = sequentialColor(max > 0 ? v / max : 0);
          const x = left + ci * cellW;
          const y = top + ri * cellH;
          const label = `${spec.rowLabel} ${r}, ${spec.columnLabel} ${c}: ${format(v)}`;
          const text = showText
            ? `<text x="${px(x + cellW / 2)}" y="${px(y + cellH / 2 + 4)}" text-anchor="middle" fill="${textColorOn(fill)}" font-size="10" aria-hidden="true">${escapeXml(format(v))}</text>`
            : '';
          return `<g><rect x="${px(x)}" y="${px(y)}" width="${px(cellW - 1)}" height="${cellH - 1}" fill="${fill}" data-value="${v}"><title>${escapeXml(label)}</title></rect>${text}</g>`;
        })
        .join(''),
    )
    .join('');
  const rowLabels = spec.rows
    .map(
      (r, ri) =>
        `<text x="${left - 6}" y="${px(top + ri * cellH + cellH / 2 + 4)}" text-anchor="end" fill="#333">${escapeXml(r)}</text>`,
    )
    .join('');
  const every = Math.max(1, Math.ceil(28 / cellW));
  const colLabels = spec.columns
    .map((c, ci) =>
      ci % every === 0
        ? `<text x="${px(left + ci * cellW + cellW / 2)}" y="${top - 6}" text-anchor="middle" fill="#333">${escapeXml(c)}</text>`
        : '',
    )
    .join('');
  const titles =
    `<text x="${px(left + (cellW * cols) / 2)}" y="14" text-anchor="middle" fill="#333">${escapeXml(spec.columnLabel)}</text>` +
    `<text x="4" y="${top - 6}" fill="#333">${escapeXml(spec.rowLabel)}</text>`;
  const body = `<g aria-hidden="true">${titles}${rowLabels}${colLabels}</g><g>${cells}</g>`;
  const table = dataTable(
    spec.title,
    [spec.rowLabel, ...spec.columns.map((c) => `${spec.columnLabel} ${c}`)],
    spec.rows.map((r, ri) => [
      r,
      ...spec.columns.map((_, ci) => {
        const v = spec.values[ri]?.[ci] ?? null;
        return v === null ? '–' : format(v);
      }),
    ]),
  );
  return { svg: svgFrame(spec, body, Math.round(width), Math.round(height)), table };
}
