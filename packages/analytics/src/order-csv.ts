/** One row of an order export (`customer_id,order_date,order_amount`). */
export interface OrderRow {
  customer_id: string;
  /** ISO-8601 date or date-time (anything `Date.parse` reads), or a Date / epoch ms. */
  order_date: string | Date | number;
  /** Net amount. */
  order_amount: number;
}

/** A malformed order CSV; `line` is 1-based. */
export class OrderCsvError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(`line ${line}: ${message}`);
    this.name = 'OrderCsvError';
  }
}

const COLUMNS = ['customer_id', 'order_date', 'order_amount'] as const;

/**
 * Parses an order CSV whose header names the columns customer_id, order_date and order_amount (in any
 * order; other columns are ignored). RFC 4180 quoting ("a,b", "say ""hi""") is understood; CRLF, a
 * UTF-8 BOM and blank lines are tolerated. Dates are validated but kept as text. Throws
 * {@link OrderCsvError} with the line number on a missing column, bad date or non-numeric amount.
 */
export function parseOrderCsv(text: string): OrderRow[] {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const header = splitCsvLine(lines[0] ?? '', 1).map((h) => h.trim().toLowerCase());
  const at = COLUMNS.map((name) => header.indexOf(name));
  const missing = COLUMNS.filter((_, i) => at[i] === -1);
  if (missing.length > 0) throw new OrderCsvError(`missing column(s) ${missing.join(', ')}`, 1);
  const [idAt, dateAt, amountAt] = at as [number, number, number];
  const rows: OrderRow[] = [];
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i] as string;
    if (line.trim() === '') continue;
    const cells = splitCsvLine(line, i + 1);
    const id = (cells[idAt] ?? '').trim();
    const date = (cells[dateAt] ?? '').trim();
    const amountText = (cells[amountAt] ?? '').trim();
    const amount = Number(amountText);
    if (id === '') throw new OrderCsvError('empty customer_id', i + 1);
    if (!Number.isFinite(Date.parse(date))) throw new OrderCsvError(`invalid order_date "${date}"`, i + 1);
    if (amountText === '' || !Number.isFinite(amount)) {
      throw new OrderCsvError(`invalid order_amount "${amountText}"`, i + 1);
    }
    rows.push({ customer_id: id, order_date: date, order_amount: amount });
  }
  return rows;
}

function splitCsvLine(line: string, lineNumber: number): string[] {
  const cells: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"' && cell === '') quoted = true;
    else if (ch === ',') {
      cells.push(cell);
      cell = '';
    } else cell += ch;
  }
  if (quoted) throw new OrderCsvError('unterminated quoted field', lineNumber);
  cells.push(cell);
  return cells;
}
