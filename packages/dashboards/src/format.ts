/**
 * An amount in `currency` as a merchant reads it (en-US grouping, the currency's symbol or code, two
 * decimals). A code Intl does not know is printed after the number.
 *
 * @example
 * formatMoney(1234.5, 'EUR'); // '€1,234.50'
 */
export function formatMoney(amount: number, currency: string): string {
  try {
    return new Intl.NumberFormat('en-US', {
      style: 'currency',
      currency,
      minimumFractionDigits: 2,
      maximumFractionDigits: 2,
    }).format(amount);
  } catch {
    return `${amount.toFixed(2)} ${currency}`;
  }
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
