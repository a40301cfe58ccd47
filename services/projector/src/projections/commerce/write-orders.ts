import type { Conversion, OrderWrite as DomainOrderWrite } from '@holdfast/domain';
import { AMOUNT_SQL_TYPE } from '@holdfast/contracts';
import { qualified, type ProjectionTx } from '../../projection.js';
import { CopyBuffer, copyField, copyText } from '../copy-rows.js';
import { columnsOf, textArrayLiteral } from '../sql-arrays.js';

/**
 * One OrderUpserted, ready to merge into read_models.orders: the domain's order write plus the
 * acquisition channel, which the projector derives (spec rule 10) and stores beside the source.
 */
export interface OrderWrite extends DomainOrderWrite {
  /** acquisitionChannel(source) (spec rule 10): the label, or `campaign` for a full landing URL. */
  readonly acquisitionChannel: string | null;
}

// What an order says about itself: last write wins (with the rest of LWW).
const DESCRIPTION = [
  'order_amount',
  'product_name',
  'email',
  'phone',
  'customer_name',
  'source',
  'order_channel',
  'currency',
  'shipping_city',
  'shipping_state',
  'shipping_zip',
];

const DISCOUNT = ['discount_total', 'discount_pct', 'discount_codes'];

// Last write wins for these (the domain's ORDER_COLUMN_RULES, pinned by write-orders.test.ts); the merge
// rules of the others are spelled out in the update.
export const LWW = [...DESCRIPTION, ...DISCOUNT, 'acquisition_channel'];

// The conversion follows the currency (last write wins) at the order's first-written date: a re-post
// that carries another order_date (which the spec says never changes) keeps the stored conversion.
const FX = ['reporting_currency', 'fx_rate', 'fx_minor_units', 'fx_rate_date', 'fx_status'];

// The COPY's and the update parameters' column order (orderValues, newOrderLine follow it).
const COLUMN_LIST = [
  'account_id',
  'order_id',
  'customer_id',
  'external_customer_id',
  'order_date',
  ...DESCRIPTION,
  'refunded_amount',
  ...DISCOUNT,
  'cancelled_at',
  'first_seen_at',
  'updated_at',
  // Added columns go after updated_at (tables created before get them by `add column`).
  'acquisition_channel',
  ...FX,
];

// The chunk's rows, typed like the table (so comparisons see what would be stored, e.g. amounts
// rounded to the money type, AMOUNT_SQL_TYPE: one definition with the DDL); refunded_amount null (not carried) reads as 0, which never wins.
const ROWS = `(
  select a as account_id, oid as order_id, cid as customer_id, ext as external_customer_id,
    od as order_date, amt::${AMOUNT_SQL_TYPE} as order_amount, pn as product_name, em as email, ph as phone,
    cn as customer_name, src as source, ch as order_channel, cur as currency, sc as shipping_city,
    ss as shipping_state, sz as shipping_zip, coalesce(rf, 0)::${AMOUNT_SQL_TYPE} as refunded_amount,
    dt::${AMOUNT_SQL_TYPE} as discount_total, dp as discount_pct, dc::text[] as discount_codes,
    ca as cancelled_at, ra as first_seen_at, ra as updated_at, ac as acquisition_channel,
    rc as reporting_currency, fr::numeric as fx_rate, mu::smallint as fx_minor_units, frd::date as fx_rate_date,
    fs as fx_status
  from unnest($1::uuid[], $2::text[], $3::uuid[], $4::text[], $5::timestamptz[], $6::numeric[],
    $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[],
    $15::text[], $16::text[], $17::numeric[], $18::numeric[], $19::numeric[], $20::text[],
    $21::timestamptz[], $22::timestamptz[], $23::text[], $24::text[], $25::text[], $26::int[], $27::text[],
    $28::text[])
    as u(a, oid, cid, ext, od, amt, pn, em, ph, cn, src, ch, cur, sc, ss, sz, rf, dt, dp, dc, ca, ra, ac,
      rc, fr, mu, frd, fs)
) p`;

// Returns the rows it changed whose stored order_date differs from the re-post's (the spec says it
// never changes; the stored one stays): their conversion is recomputed for the stored date.
const updateSql = (schema: string) => `
  with changed as (
  update ${qualified(schema, 'orders')} o set
    ${LWW.map((c) => `${c} = p.${c}`).join(', ')},
    -- Refunds are cumulative and cancellations final: both only move forward, and a re-post that
    -- does not carry them keeps what is stored.
    refunded_amount = greatest(o.refunded_amount, p.refunded_amount),
    cancelled_at = greatest(o.cancelled_at, p.cancelled_at),
    updated_at = greatest(o.updated_at, p.updated_at),
    ${FX.map((c) => `${c} = case when o.order_date = p.order_date then p.${c} else o.${c} end`).join(', ')}
    -- order_date, customer_id, external_customer_id, first_seen_at: never change after the first write.
  from ${ROWS}
  where o.account_id = p.account_id and o.order_id = p.order_id
    -- A re-post that changes nothing writes nothing (and leaves updated_at alone).
    and ((${LWW.map((c) => `o.${c}`).join(', ')}) is distinct from (${LWW.map((c) => `p.${c}`).join(', ')})
      or (o.order_date = p.order_date and (${FX.map((c) => `o.${c}`).join(', ')}) is distinct from (${FX.map((c) => `p.${c}`).join(', ')}))
      or p.refunded_amount > o.refunded_amount
      or p.cancelled_at > o.cancelled_at
      or (o.cancelled_at is null and p.cancelled_at is not null))
  returning o.account_id, o.order_id, o.order_date, o.currency, p.order_date as posted_date)
  select account_id::text, order_id, order_date, currency from changed where order_date <> posted_date`;

const reconvertSql = (schema: string) => `
  update ${qualified(schema, 'orders')} o set reporting_currency = g.rc, fx_rate = g.fr::numeric,
         fx_minor_units = g.mu, fx_rate_date = g.frd::date, fx_status = g.fs
    from unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::int[], $6::text[], $7::text[])
      as g(a, oid, rc, fr, mu, frd, fs)
   where o.account_id = g.a and o.order_id = g.oid`;

/**
 * Merges orders set-based. Orders not stored yet are appended with COPY (the common case of a
 * backfill); stored ones are updated with the merge rules in one statement. An order_id repeated within the chunk goes in rounds, the k-th occurrence in round k,
 * so "the last row of an order_id wins" and the forward-only rules hold exactly as if the records were
 * applied one by one.
 */
export async function writeOrders(
  tx: ProjectionTx,
  orders: readonly OrderWrite[],
  options: WriteOrdersOptions = {},
): Promise<void> {
  if (!orders.length) return;
  const { resident, beforeJoin, whileCopying, conversionOf = atPar } = options;
  const unknown = resident ? orders.filter((o) => !resident.has(o.accountId)) : orders;
  let storedUnknown: ReadonlySet<string> = NONE;
  if (unknown.length) {
    await beforeJoin?.();
    storedUnknown = await storedOrderKeys(tx, unknown);
  }
  const isStored = (o: OrderWrite) => {
    const ids = resident?.get(o.accountId);
    return ids ? ids.has(o.orderId) : storedUnknown.has(keyOf(o));
  };
  // Occurrences per account and order id (nested maps: no key string per order).
  const rounds: OrderWrite[][] = [];
  const seen = new Map<string, Map<string, number>>();
  for (const o of orders) {
    let ofAccount = seen.get(o.accountId);
    if (!ofAccount) seen.set(o.accountId, (ofAccount = new Map<string, number>()));
    const n = ofAccount.get(o.orderId) ?? 0;
    ofAccount.set(o.orderId, n + 1);
    (rounds[n] ??= []).push(o);
  }
  for (const [i, round] of rounds.entries()) {
    const fresh: OrderWrite[] = [];
    const known: OrderWrite[] = [];
    for (const o of round) (i === 0 && !isStored(o) ? fresh : known).push(o);
    if (fresh.length) {
      const body = new CopyBuffer();
      for (const o of fresh) body.append(newOrderLine(o, conversionOf(o.accountId, o.currency, o.orderDate)));
      await copyText(tx.client, qualified(tx.schema, 'orders'), COLUMN_LIST, body.bytes(), { whileCopying });
    }
    if (resident) for (const o of fresh) resident.get(o.accountId)?.add(o.orderId);
    // The update joins on the primary key, which the planner picks even without statistics.
    if (known.length) {
      const { rows: moved } = await tx.client.query<MovedDate>(
        updateSql(tx.schema),
        columnsOf(known, (o) => orderValues(o, conversionOf(o.accountId, o.currency, o.orderDate))),
      );
      if (moved.length)
        await tx.client.query(
          reconvertSql(tx.schema),
          columnsOf(moved, (m) => {
            const c = conversionOf(m.account_id, m.currency, m.order_date.toISOString());
            return [m.account_id, m.order_id, c.to, c.rate, c.minorUnits, c.rateDay, c.status];
          }),
        );
    }
  }
}

export interface WriteOrdersOptions {
  /**
   * Every stored order id of the accounts it has (kept in memory by the projection): their orders
   * need no lookup, and the ids written are added to it.
   */
  readonly resident?: ReadonlyMap<string, Set<string>>;
  /** Runs before the stored-order lookup (to refresh planner statistics). */
  readonly beforeJoin?: () => Promise<void>;
  /** Runs while PostgreSQL ingests the COPY of new orders (the chunk's largest statement). */
  readonly whileCopying?: () => void;
  /**
   * The conversion of an order's amounts into its account's reporting currency (FxSnapshot); without
   * it, amounts are kept at par in USD.
   */
  readonly conversionOf?: (accountId: string, currency: string, orderDate: string) => Conversion;
}

interface MovedDate {
  readonly account_id: string;
  readonly order_id: string;
  readonly order_date: Date;
  readonly currency: string;
}

const atPar = (): Conversion => AT_PAR;
const AT_PAR: Conversion = Object.freeze({
  to: 'USD',
  rate: '1',
  rateDay: null,
  status: 'same',
  minorUnits: 2,
});

const keyOf = (o: OrderWrite) => `${o.accountId}\u0000${o.orderId}`;
const NONE: ReadonlySet<string> = new Set();

async function storedOrderKeys(tx: ProjectionTx, orders: readonly OrderWrite[]): Promise<Set<string>> {
  const { rows } = await tx.client.query<{ account_id: string; order_id: string }>(
    `select o.account_id, o.order_id from unnest($1::uuid[], $2::text[]) k(a, id)
       join ${qualified(tx.schema, 'orders')} o on o.account_id = k.a and o.order_id = k.id`,
    columnsOf(orders, (o) => [o.accountId, o.orderId]),
  );
  return new Set(rows.map((r) => `${r.account_id}\u0000${r.order_id}`));
}

/**
 * An order's values as the update's parameters take them: COLUMN_LIST order up to first_seen_at
 * (which is received_at), then the added columns.
 */
export function orderValues(o: OrderWrite, c: Conversion): unknown[] {
  return [
    o.accountId,
    o.orderId,
    o.customerId,
    o.externalCustomerId,
    o.orderDate,
    o.orderAmount,
    o.productName,
    o.email,
    o.phone,
    o.customerName,
    o.source,
    o.orderChannel,
    o.currency,
    o.shippingCity,
    o.shippingState,
    o.shippingZip,
    o.refundedAmount,
    o.discountTotal,
    o.discountPct,
    textArrayLiteral(o.discountCodes),
    o.cancelledAt,
    o.receivedAt,
    o.acquisitionChannel,
    c.to,
    c.rate,
    c.minorUnits,
    c.rateDay,
    c.status,
  ];
}

const NULL = '\\N';
const text = copyField as (v: string) => string;
const opt = (v: string | null) => (v === null ? NULL : text(v));
const num = (v: number | null) => (v === null ? NULL : String(v));

/**
 * A first write as one COPY line, in COLUMN_LIST order: the row as stored (a refund not carried is 0;
 * first_seen_at = updated_at = received_at). Written out field by field rather than through an array
 * of values: this runs for every order of a backfill.
 */
export function newOrderLine(o: OrderWrite, c: Conversion): string {
  return (
    `${text(o.accountId)}\t${text(o.orderId)}\t${o.customerId ?? NULL}\t${opt(o.externalCustomerId)}\t` +
    `${text(o.orderDate)}\t${o.orderAmount}\t${text(o.productName)}\t${opt(o.email)}\t${opt(o.phone)}\t` +
    `${opt(o.customerName)}\t${opt(o.source)}\t${opt(o.orderChannel)}\t${text(o.currency)}\t` +
    `${opt(o.shippingCity)}\t${opt(o.shippingState)}\t${opt(o.shippingZip)}\t${o.refundedAmount ?? 0}\t` +
    `${num(o.discountTotal)}\t${num(o.discountPct)}\t${copyField(o.discountCodes)}\t${opt(o.cancelledAt)}\t` +
    `${text(o.receivedAt)}\t${text(o.receivedAt)}\t${opt(o.acquisitionChannel)}\t` +
    `${c.to}\t${c.rate}\t${c.minorUnits}\t${c.rateDay ?? NULL}\t${c.status}\n`
  );
}
