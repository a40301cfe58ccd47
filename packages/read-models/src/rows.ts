// Typed rows of the read models, as `pg` returns them through `createPool` (uuid and text as
// strings, int8 and numeric as numbers, timestamptz and date as Dates, jsonb parsed). Each interface
// has a column list that must name exactly its keys (`satisfies`), and `rows.int.test.ts` holds the
// lists to the tables the DDL creates, so a column added to one and not the other fails a test.

/** A row of `orders` (docs/read-models.md, "orders"). */
export interface OrderRow {
  readonly account_id: string;
  readonly order_id: string;
  readonly customer_id: string | null;
  readonly external_customer_id: string | null;
  readonly order_date: Date;
  readonly order_amount: number;
  readonly product_name: string;
  readonly email: string | null;
  readonly phone: string | null;
  readonly customer_name: string | null;
  readonly source: string | null;
  readonly order_channel: string | null;
  readonly currency: string;
  readonly shipping_city: string | null;
  readonly shipping_state: string | null;
  readonly shipping_zip: string | null;
  readonly refunded_amount: number;
  readonly discount_total: number | null;
  readonly discount_pct: number | null;
  readonly discount_codes: string[] | null;
  readonly cancelled_at: Date | null;
  /** Generated: order_amount − refunded_amount, 0 once cancelled. */
  readonly net_amount: number;
  readonly first_seen_at: Date;
  readonly updated_at: Date;
  readonly acquisition_channel: string | null;
  readonly reporting_currency: string;
  readonly fx_rate: number;
  readonly fx_minor_units: number;
  readonly fx_rate_date: Date | null;
  readonly fx_status: 'same' | 'converted' | 'unknown_currency' | 'no_rate' | 'pending';
  /** Generated: the amounts in the account's reporting currency. */
  readonly order_amount_reporting: number;
  readonly refunded_amount_reporting: number;
  readonly net_amount_reporting: number;
}

/** A row of `customers` (docs/read-models.md, "customers"). */
export interface CustomerRow {
  readonly account_id: string;
  readonly customer_id: string;
  readonly external_id: string | null;
  readonly email: string | null;
  readonly phone: string | null;
  readonly name: string | null;
  readonly address_street: string | null;
  readonly address_city: string | null;
  readonly address_state: string | null;
  readonly address_zip: string | null;
  readonly address_country: string | null;
  readonly consent_marketing_email: boolean;
  readonly consent_sms: boolean;
  readonly consent_suppressed: boolean;
  readonly consent_bounced: boolean;
  readonly source_label: string;
  readonly subscription_status: 'active' | 'paused' | 'cancelled' | null;
  readonly subscription_started_at: Date | null;
  readonly created_at: Date;
  readonly updated_at: Date;
}

/** The keys of `c`, which must be exactly the columns of `Row` (a missing or an extra one fails to compile). */
const columns =
  <Row>() =>
  <const C extends Record<keyof Row, true>>(c: C & Record<Exclude<keyof C, keyof Row>, never>) =>
    Object.keys(c) as (keyof Row)[];

/** Every column of `orders`, in table order. */
export const ORDER_ROW_COLUMNS = columns<OrderRow>()({
  account_id: true,
  order_id: true,
  customer_id: true,
  external_customer_id: true,
  order_date: true,
  order_amount: true,
  product_name: true,
  email: true,
  phone: true,
  customer_name: true,
  source: true,
  order_channel: true,
  currency: true,
  shipping_city: true,
  shipping_state: true,
  shipping_zip: true,
  refunded_amount: true,
  discount_total: true,
  discount_pct: true,
  discount_codes: true,
  cancelled_at: true,
  net_amount: true,
  first_seen_at: true,
  updated_at: true,
  acquisition_channel: true,
  reporting_currency: true,
  fx_rate: true,
  fx_minor_units: true,
  fx_rate_date: true,
  fx_status: true,
  order_amount_reporting: true,
  refunded_amount_reporting: true,
  net_amount_reporting: true,
});

/** Every column of `customers`, in table order. */
export const CUSTOMER_ROW_COLUMNS = columns<CustomerRow>()({
  account_id: true,
  customer_id: true,
  external_id: true,
  email: true,
  phone: true,
  name: true,
  address_street: true,
  address_city: true,
  address_state: true,
  address_zip: true,
  address_country: true,
  consent_marketing_email: true,
  consent_sms: true,
  consent_suppressed: true,
  consent_bounced: true,
  source_label: true,
  subscription_status: true,
  subscription_started_at: true,
  created_at: true,
  updated_at: true,
});
