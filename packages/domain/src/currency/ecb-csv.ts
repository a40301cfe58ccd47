import { parse } from 'csv-parse/sync';
import { parseDecimal } from './decimal.js';
import type { ReferenceRate } from './reference-rates.js';

/** A line of a rates file that cannot be read: the whole file is refused. */
export interface EcbCsvIssue {
  /** 1-based line number. */
  readonly line: number;
  readonly message: string;
}

export type ParsedEcbCsv =
  | {
      readonly ok: true;
      readonly rates: ReferenceRate[];
      readonly days: number;
      readonly currencies: string[];
    }
  | { readonly ok: false; readonly issues: EcbCsvIssue[] };

const CODE = /^[A-Z]{3}$/;
const ISO_DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
// The daily file (eurofxref.csv) writes its date as "13 April 2026".
const LONG_DAY = /^(\d{1,2}) ([A-Za-z]+) (\d{4})$/;
const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];
const RATE = /^\d+(\.\d{1,6})?$/;
/** Cells the ECB leaves for a currency not quoted that day. */
const NOT_QUOTED = new Set(['', 'N/A']);

function isoDay(cell: string): string | null {
  const iso = ISO_DAY.exec(cell);
  const long = iso ? null : LONG_DAY.exec(cell);
  const [y, m, d] = iso
    ? [Number(iso[1]), Number(iso[2]), Number(iso[3])]
    : long
      ? [Number(long[3]), MONTHS.indexOf(long[2]!.toLowerCase()) + 1, Number(long[1])]
      : [0, 0, 0];
  if (!m) return null;
  const date = new Date(Date.UTC(y, m - 1, d));
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== m - 1 || date.getUTCDate() !== d) return null;
  return date.toISOString().slice(0, 10);
}

/** The file's records with their 1-based line numbers, or the line csv-parse stopped at (an unclosed quote). */
function readRecords(text: string): { cells: string[]; line: number }[] | EcbCsvIssue {
  try {
    // Cells are trimmed (the daily file pads them with spaces); rows may be shorter or longer than the
    // header (the checks below say which), and blank lines are skipped.
    const rows = parse(text, {
      bom: true,
      trim: true,
      relax_column_count: true,
      skip_empty_lines: true,
      info: true,
      // csv-parse's types leave out what `info: true` returns: each record with its line.
    }) as unknown as { record: string[]; info: { lines: number } }[];
    return rows.map(({ record, info }) => ({ cells: record, line: info.lines }));
  } catch (e) {
    const line = (e as { lines?: unknown }).lines;
    return {
      line: typeof line === 'number' ? line : 1,
      message: `not readable as CSV: ${e instanceof Error ? e.message : String(e)}`,
    };
  }
}

/**
 * Reads euro reference rates in the ECB's CSV layouts: the history file `eurofxref-hist.csv` (header
 * `Date,USD,JPY,…` with a trailing comma, one line per business day, `N/A` where a currency was not
 * quoted) and the daily `eurofxref.csv` (`Date, USD, …` with spaces, date as `13 April 2026`). Every
 * rate must be a positive decimal with at most 6 places; any unreadable line refuses the whole file
 * (all its issues are listed).
 *
 * @example
 * parseEcbCsv('Date,USD,JPY,\n2024-03-15,1.0892,162.03,\n');
 * // { ok: true, days: 1, currencies: ['JPY', 'USD'], rates: [{ currency: 'USD', day: '2024-03-15', perEur: '1.0892' }, …] }
 */
export function parseEcbCsv(text: string): ParsedEcbCsv {
  const records = readRecords(text);
  if (!Array.isArray(records)) return { ok: false, issues: [records] };
  const issues: EcbCsvIssue[] = [];
  const header = [...(records[0]?.cells ?? [])];
  if (header[0] !== 'Date')
    return { ok: false, issues: [{ line: 1, message: 'the header must start with "Date"' }] };
  while (header.length > 1 && header[header.length - 1] === '') header.pop();
  const codes = header.slice(1);
  codes.forEach((c, i) => {
    if (!CODE.test(c))
      issues.push({ line: 1, message: `column ${i + 2}: "${c}" is not a 3-letter currency code` });
  });
  if (codes.length === 0) issues.push({ line: 1, message: 'no currency columns' });
  if (new Set(codes).size !== codes.length)
    issues.push({ line: 1, message: 'a currency column is repeated' });
  const rates: ReferenceRate[] = [];
  const seenDays = new Set<string>();
  for (const { cells, line } of records.slice(1)) {
    const day = isoDay(cells[0] ?? '');
    if (!day) {
      issues.push({ line, message: `"${cells[0]}" is not a date` });
      continue;
    }
    if (seenDays.has(day)) issues.push({ line, message: `${day} appears twice` });
    seenDays.add(day);
    const extra = cells.slice(codes.length + 1).filter((c) => c !== '');
    if (extra.length) issues.push({ line, message: 'more values than currency columns' });
    codes.forEach((currency, c) => {
      const cell = cells[c + 1] ?? '';
      if (NOT_QUOTED.has(cell)) return;
      if (!RATE.test(cell) || parseDecimal(cell).units === 0n)
        issues.push({ line, message: `${currency}: "${cell}" is not a positive rate` });
      else rates.push({ currency, day, perEur: cell });
    });
  }
  if (issues.length) return { ok: false, issues };
  return {
    ok: true,
    rates,
    days: seenDays.size,
    currencies: [...new Set(rates.map((r) => r.currency))].sort(),
  };
}
