import { escapeXml, safeId } from './escape.js';

/** What every chart says about itself: its id (unique on the page), title and description. */
export interface ChartText {
  /** Unique on the page: the ids of the title and the description derive from it. */
  readonly id: string;
  /** Short name of the chart: the SVG's <title>, the table's <caption>. */
  readonly title: string;
  /** What the chart shows, in words (the SVG's <desc>): a screen reader reads it instead of the shapes. */
  readonly description: string;
}

/** A rendered chart: the SVG and the same numbers as an HTML table (the fallback). */
export interface Chart {
  readonly svg: string;
  readonly table: string;
}

/** The chart's size in SVG user units (the SVG scales to its container through its viewBox). */
export const WIDTH = 640;
export const HEIGHT = 320;

/**
 * An SVG document with role="img", labelled by its <title> and described by its <desc> (the pattern
 * that reads correctly in current screen readers), around `body`.
 */
export function svgFrame(text: ChartText, body: string, width = WIDTH, height = HEIGHT): string {
  const id = safeId(text.id);
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="100%" role="img" ` +
    `aria-labelledby="${id}-title ${id}-desc" font-family="system-ui, sans-serif" font-size="12">` +
    `<title id="${id}-title">${escapeXml(text.title)}</title>` +
    `<desc id="${id}-desc">${escapeXml(text.description)}</desc>${body}</svg>`
  );
}

/**
 * The numbers of a chart as an HTML table: a caption, one header row, then one row per entry whose
 * first cell is a row header.
 */
export function dataTable(
  caption: string,
  header: readonly string[],
  rows: ReadonlyArray<readonly [label: string, ...cells: string[]]>,
): string {
  const th = header.map((h) => `<th scope="col">${escapeXml(h)}</th>`).join('');
  const body = rows
    .map(
      ([label, ...cells]) =>
        `<tr><th scope="row">${escapeXml(label)}</th>${cells.map((c) => `<td>${escapeXml(c)}</td>`).join('')}</tr>`,
    )
    .join('');
  return `<table><caption>${escapeXml(caption)}</caption><thead><tr>${th}</tr></thead><tbody>${body}</tbody></table>`;
}

/**
 * A chart as an HTML <figure>: the SVG, then its data table in a <details> (closed: the picture first,
 * the numbers one click or one screen-reader command away).
 */
export function renderFigure(chart: Chart, note?: string): string {
  const caption = note === undefined ? '' : `<figcaption>${escapeXml(note)}</figcaption>`;
  return (
    `<figure class="hf-chart">${chart.svg}${caption}` +
    `<details class="hf-chart-data"><summary>Data table</summary>${chart.table}</details></figure>`
  );
}

/** The default number format: grouped digits, at most two decimals. */
export const formatNumber = (v: number): string => v.toLocaleString('en-US', { maximumFractionDigits: 2 });
