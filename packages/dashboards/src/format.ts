/**
 * An amount in `currency` as a merchant reads it (en-US grouping, the currency's symbol or code, two
 * decimals). A code Intl does not know is printed after the number.
 *
 * @example
 * formatMoney(1234.5, 'EUR'); // '€1,234.50'
 */
export function formatMoney(amount: number, currency: string, decimals = 2): string {
  const format = moneyFormat(currency, decimals);
  return format ? format.format(amount) : `${amount.toFixed(decimals)} ${currency}`;
}

/** Whole units, for axis ticks: 8000 EUR → '€8,000'. */
export const formatMoneyTick = (amount: number, currency: string): string => formatMoney(amount, currency, 0);

/**
 * One Intl formatter per currency, kept: building one costs about as much as rendering a whole
 * chart, and a lift page formats hundreds of amounts. null for a code Intl refuses.
 */
const formats = new Map<string, Intl.NumberFormat | null>();
function moneyFormat(currency: string, decimals: number): Intl.NumberFormat | null {
  const key = `${currency}:${decimals}`;
  let f = formats.get(key);
  if (f === undefined) {
    try {
      f = new Intl.NumberFormat('en-US', {
        style: 'currency',
        currency,
        minimumFractionDigits: decimals,
        maximumFractionDigits: decimals,
      });
    } catch {
      f = null;
    }
    if (formats.size < 512) formats.set(key, f);
  }
  return f;
}

/** A share as a percentage with one decimal: 0.4567 → '45.7%'. */
export const formatShare = (share: number): string => `${(share * 100).toFixed(1)}%`;

/** A count with grouped digits: 1234567 → '1,234,567'. */
export const formatCount = (n: number): string => Math.round(n).toLocaleString('en-US');

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/**
 * The calendar month (UTC) of an ISO timestamp: 'November 2026'; `short`: '2026-11'.
 *
 * @example
 * monthName('2026-11-01T00:00:00.000Z'); // 'November 2026'
 */
export function monthName(iso: string, short = false): string {
  const d = new Date(iso);
  if (short) return `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
  return `${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
}

/** The UTC day of an ISO timestamp: '2026-11-20'. */
export const dayOf = (iso: string): string => new Date(iso).toISOString().slice(0, 10);
