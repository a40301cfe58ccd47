/** An order row as stored and appended to the log: UTC timestamps with `Z`, E.164 phone, upper-case currency. */
export interface NormalizedOrder {
  order_id: string;
  customer_id: string | null;
  order_date: string;
  order_amount: number;
  product_name: string;
  email: string | null;
  phone: string | null;
  customer_name: string | null;
  source: string | null;
  order_channel: string | null;
  currency: string;
  shipping_city: string | null;
  shipping_state: string | null;
  shipping_zip: string | null;
  refunded_amount: number | null;
  discount_total: number | null;
  discount_pct: number | null;
  discount_codes: string[] | null;
  cancelled_at: string | null;
}

/** Row-level error codes of the orders dry run (spec codes table, and `suppressed_identity`: an erased and suppressed person). */
export type OrderErrorCode =
  | 'no_usable_identity'
  | 'unparseable_order_date_or_amount'
  | 'invalid_currency_code_fails_whole_batch'
  | 'suppressed_identity';

/** Row-level warning codes of the orders dry run (spec codes table). */
export type OrderWarningCode =
  'unknown_fields_ignored' | 'duplicate_in_batch_last_wins' | 'naive_timestamp_read_as_utc';
