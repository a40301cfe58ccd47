import { amountFits, ORDER_ROW_FIELDS } from '@holdfast/contracts/http';
import type { OrderRowInput } from '@holdfast/contracts';
import type { PhoneNormalizer } from '../shared/normalize-phone.js';
import { parseTimestamp } from '../shared/parse-timestamp.js';
import { blankToNull, isBlank, normalizeEmail } from '../shared/text.js';
import type { NormalizedOrder, OrderErrorCode } from './normalized-order.js';

const KNOWN_FIELDS = new Set(ORDER_ROW_FIELDS);
const CURRENCY_CODE = /^[A-Za-z]{3}$/;

/** What one schema-valid row becomes: the normalised order, or its error codes. */
export interface OrderRowOutcome {
  /** `null` exactly when `codes` is non-empty. */
  readonly order: NormalizedOrder | null;
  readonly codes: readonly OrderErrorCode[];
  /** order_date had no UTC offset and was read as UTC. */
  readonly naive: boolean;
  /** Fields present on the row that are not stored (only computed for rows without errors). */
  readonly unknownFields: readonly string[] | null;
}

/**
 * Currency as stored: null, omitted or blank → 'USD'; three ASCII letters in any case → upper-case
 * (unknown codes are kept: they convert at rate 1.0); anything else → `null` (the batch fails).
 */
export function normalizeCurrency(value: string | null | undefined): string | null {
  if (value == null) return 'USD';
  const code = value.length === 3 ? value : value.trim();
  if (code.length === 0) return 'USD';
  return CURRENCY_CODE.test(code) ? code.toUpperCase() : null;
}

const finiteOrNull = (v: number | null | undefined) =>
  typeof v === 'number' && Number.isFinite(v) ? v : null;
/** An amount the money columns can hold and the merge rules accept (refunds and totals are never negative). */
const storableAmount = (v: number) => v >= 0 && amountFits(v);
/** An optional amount that is present but cannot be stored: the row is dropped, not silently changed. */
const badOptionalAmount = (v: number | null | undefined, nonNegative: boolean) =>
  typeof v === 'number' && (nonNegative ? !storableAmount(v) : !amountFits(v));
const NO_CODES: readonly OrderErrorCode[] = [];

/**
 * Normalises one order row that passed `validateOrdersRequest`. Rules, in the order of `codes`:
 * - `no_usable_identity`: customer_id blank and email blank and phone blank or invalid; a blank
 *   customer_id becomes `null` when email or phone carries the identity; a non-blank one is kept verbatim;
 * - `unparseable_order_date_or_amount`: order_date not ISO 8601 or outside years 0001..9999 (see
 *   `parseTimestamp`); order_amount negative, not finite or not below 10^14 (numeric(18,4)); or
 *   refunded_amount negative or not below 10^14, or discount_total not below 10^14 in absolute value
 *   (dropping the row tells the client in a dry run; storing it without its refund would lose money);
 * - `invalid_currency_code_fails_whole_batch`: currency not 3 letters (see `normalizeCurrency`).
 * cancelled_at is parsed like order_date; an unparseable one becomes `null` (the order is kept: a bad
 * optional field must not lose revenue) and a naive one is read as UTC without a warning (the spec's
 * warning names order_date only). Blank optional strings become `null`.
 */
export function normalizeOrderRow(row: OrderRowInput, normalizePhone: PhoneNormalizer): OrderRowOutcome {
  let codes: OrderErrorCode[] | null = null;
  const customerId = isBlank(row.customer_id) ? null : row.customer_id;
  const email = normalizeEmail(row.email);
  const phone = row.phone == null ? null : normalizePhone(row.phone);
  if (customerId === null && email === null && phone === null) (codes ??= []).push('no_usable_identity');
  const date = parseTimestamp(row.order_date);
  const amount = row.order_amount;
  if (
    date === null ||
    !storableAmount(amount) ||
    badOptionalAmount(row.refunded_amount, true) ||
    badOptionalAmount(row.discount_total, false)
  )
    (codes ??= []).push('unparseable_order_date_or_amount');
  const currency = normalizeCurrency(row.currency);
  if (currency === null) (codes ??= []).push('invalid_currency_code_fails_whole_batch');
  if (codes !== null || date === null || currency === null)
    return { order: null, codes: codes ?? NO_CODES, naive: false, unknownFields: null };

  let unknownFields: string[] | null = null;
  for (const key in row) if (!KNOWN_FIELDS.has(key)) (unknownFields ??= []).push(key);
  const cancelled = row.cancelled_at == null ? null : parseTimestamp(row.cancelled_at);
  const order: NormalizedOrder = {
    order_id: row.order_id,
    customer_id: customerId,
    order_date: date.iso,
    order_amount: amount,
    product_name: row.product_name,
    email,
    phone,
    customer_name: blankToNull(row.customer_name),
    source: blankToNull(row.source),
    order_channel: blankToNull(row.order_channel),
    currency,
    shipping_city: blankToNull(row.shipping_city),
    shipping_state: blankToNull(row.shipping_state),
    shipping_zip: blankToNull(row.shipping_zip),
    refunded_amount: finiteOrNull(row.refunded_amount),
    discount_total: finiteOrNull(row.discount_total),
    discount_pct: finiteOrNull(row.discount_pct),
    discount_codes: row.discount_codes == null ? null : [...row.discount_codes],
    cancelled_at: cancelled === null ? null : cancelled.iso,
  };
  return { order, codes: NO_CODES, naive: date.naive, unknownFields };
}
