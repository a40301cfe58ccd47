/** What is being backfilled: the endpoint and the body's array name. */
export type BackfillKind = 'orders' | 'customers';

/** The column holding a row's own id: shown in error reports (never emails, phones or names). */
export const ID_FIELD: Readonly<Record<BackfillKind, string>> = {
  orders: 'order_id',
  customers: 'external_id',
};

// CSV has only text: these columns become JSON numbers, lists or booleans as the spec types them.
const NUMERIC = new Set(['order_amount', 'refunded_amount', 'discount_total', 'discount_pct']);
const LISTS = new Set(['discount_codes']);
const BOOLEAN = new Set(['consent.marketing_email', 'consent.sms', 'consent.suppressed', 'consent.bounced']);
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;
const TRUE = new Set(['true', '1', 'yes', 'y', 't']);
const FALSE = new Set(['false', '0', 'no', 'n', 'f']);

/** A converted row, or the codes of why it cannot be sent (it is reported, not posted). */
export type Converted =
  | { readonly ok: true; readonly value: Record<string, unknown> }
  | { readonly ok: false; readonly codes: string[] };

function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let node = target;
  for (const p of parts.slice(0, -1)) {
    const next = node[p];
    node = (typeof next === 'object' && next !== null ? next : (node[p] = {})) as Record<string, unknown>;
  }
  node[parts[parts.length - 1]!] = value;
}

/**
 * Turns one CSV record (header → text) into a JSON row: empty cells are omitted; numeric columns
 * become numbers; `discount_codes` is split on `|` or `;`; `consent.sms`-style dotted headers build
 * nested objects (booleans for consent). A cell that cannot be converted makes the row an error with
 * the code `not_a_number:<column>` or `not_a_boolean:<column>`.
 *
 * @example
 * convertCsvRecord({ order_id: 'o1', order_amount: '12.50', discount_codes: 'A|B', email: '' });
 * // { ok: true, value: { order_id: 'o1', order_amount: 12.5, discount_codes: ['A', 'B'] } }
 */
export function convertCsvRecord(record: Readonly<Record<string, string | undefined>>): Converted {
  const value: Record<string, unknown> = {};
  const codes: string[] = [];
  for (const [column, raw] of Object.entries(record)) {
    if (raw === undefined || column === '') continue;
    const text = raw.trim();
    if (text === '') continue;
    if (NUMERIC.has(column)) {
      const n = Number(text);
      if (NUMBER.test(text) && Number.isFinite(n)) setPath(value, column, n);
      else codes.push(`not_a_number:${column}`);
    } else if (LISTS.has(column)) {
      setPath(
        value,
        column,
        text
          .split(/[|;]/)
          .map((c) => c.trim())
          .filter(Boolean),
      );
    } else if (BOOLEAN.has(column)) {
      const t = text.toLowerCase();
      if (TRUE.has(t)) setPath(value, column, true);
      else if (FALSE.has(t)) setPath(value, column, false);
      else codes.push(`not_a_boolean:${column}`);
    } else {
      setPath(value, column, raw);
    }
  }
  return codes.length ? { ok: false, codes } : { ok: true, value };
}

/** The id of a row for reports: its order_id or external_id when that is a string or number. */
export function rowId(kind: BackfillKind, value: unknown): string | null {
  if (typeof value !== 'object' || value === null) return null;
  const id = (value as Record<string, unknown>)[ID_FIELD[kind]];
  return typeof id === 'string' || typeof id === 'number' ? String(id) : null;
}
