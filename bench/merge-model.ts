// An independent model of the spec's merge rules (spec "States and transitions", DESIGN.md "Read
// models"), written from the text, not from the projector's code, so that the chaos benchmark can
// check every read-model row against what the acknowledged requests must have produced.
//
// The model is fed the requests the clients saw acknowledged, in the order they were acknowledged.
// Each client stream is sequential (a batch is sent only after the previous one was answered 2xx),
// so that order is the log order for every key the stream owns; the load keeps last-write-wins
// fields of one key inside one stream.

/** An order row as posted (the fields the load uses). */
export interface OrderRow {
  order_id: string;
  customer_id: string;
  order_date: string;
  order_amount: number;
  product_name: string;
  email?: string | null;
  source?: string | null;
  currency?: string | null;
  refunded_amount?: number | null;
  cancelled_at?: string | null;
  discount_total?: number | null;
}

export interface Address {
  street?: string | null;
  city?: string | null;
  state?: string | null;
  zip?: string | null;
  country?: string | null;
}

export interface Consent {
  marketing_email?: boolean | null;
  sms?: boolean | null;
  suppressed?: boolean | null;
  bounced?: boolean | null;
}

/** A customer row (POST /ingest/customers) or the matching keys of a custom-api event. */
export interface CustomerRow {
  external_id: string;
  email?: string | null;
  name?: string | null;
  address?: Address | null;
  consent?: Consent | null;
  subscription_status?: 'active' | 'paused' | 'cancelled' | null;
  subscription_started_at?: string | null;
}

/** A custom-api webhook body (spec "Inbound customer event"). */
export interface CustomerEvent extends CustomerRow {
  event_type: string;
}

export interface ExpectedOrder {
  orderId: string;
  externalCustomerId: string;
  orderDate: number;
  orderAmount: number;
  productName: string;
  email: string | null;
  source: string | null;
  currency: string;
  refunded: number;
  cancelledAt: number | null;
  discountTotal: number | null;
  /** The fault phase of the last acknowledged request that touched the row. */
  phase: number;
}

export interface ExpectedCustomer {
  externalId: string;
  email: string | null;
  name: string | null;
  street: string | null;
  city: string | null;
  state: string | null;
  zip: string | null;
  country: string | null;
  marketingEmail: boolean;
  sms: boolean;
  suppressed: boolean;
  bounced: boolean;
  subscriptionStatus: string | null;
  subscriptionStartedAt: number | null;
  phase: number;
}

const ms = (iso: string): number => new Date(iso).getTime();

function present(v: string | null | undefined): v is string {
  return v !== null && v !== undefined && v.trim() !== '';
}

/** The expected read models of one account. */
export class MergeModel {
  readonly orders = new Map<string, ExpectedOrder>();
  readonly customers = new Map<string, ExpectedCustomer>();
  /** External ids that only a re-post with a changed customer_id carried: the spec leaves open
   * whether such a row creates a customer, so their presence is neither required nor an error. */
  readonly optionalCustomers = new Set<string>();
  /** custom-api dedup keys (event_type + external_id) already applied: a later one is ignored. */
  private readonly eventKeys = new Set<string>();

  /** One acknowledged POST /ingest/orders: within the batch the last row of an order_id wins. */
  applyOrderBatch(rows: readonly OrderRow[], phase: number): void {
    const last = new Map<string, OrderRow>();
    for (const r of rows) {
      last.delete(r.order_id);
      last.set(r.order_id, r);
    }
    for (const r of last.values()) this.applyOrder(r, phase);
  }

  private applyOrder(r: OrderRow, phase: number): void {
    const prev = this.orders.get(r.order_id);
    // order_date and customer_id never change after the first write.
    const externalCustomerId = prev?.externalCustomerId ?? r.customer_id;
    this.touchCustomerFromOrder(r, prev === undefined || prev.externalCustomerId === r.customer_id, phase);
    const refunded = Math.max(prev?.refunded ?? 0, r.refunded_amount ?? 0);
    const cancelled = r.cancelled_at ? ms(r.cancelled_at) : null;
    const cancelledAt =
      prev?.cancelledAt == null
        ? cancelled
        : cancelled == null
          ? prev.cancelledAt
          : Math.max(prev.cancelledAt, cancelled);
    this.orders.set(r.order_id, {
      orderId: r.order_id,
      externalCustomerId,
      orderDate: prev?.orderDate ?? ms(r.order_date),
      // Every other field: last write wins.
      orderAmount: r.order_amount,
      productName: r.product_name,
      email: r.email ?? null,
      source: r.source ?? null,
      currency: r.currency ?? 'USD',
      refunded,
      cancelledAt,
      discountTotal: r.discount_total ?? null,
      phase,
    });
  }

  /** The order's identity is upserted too (by external id, which every row of the load carries). */
  private touchCustomerFromOrder(r: OrderRow, owner: boolean, phase: number): void {
    if (!owner) {
      if (!this.customers.has(r.customer_id)) this.optionalCustomers.add(r.customer_id);
      return;
    }
    this.optionalCustomers.delete(r.customer_id);
    const c = this.customer(r.customer_id, phase);
    if (present(r.email)) c.email = r.email.toLowerCase();
  }

  /** One acknowledged POST /ingest/customers (rows in order). */
  applyCustomerBatch(rows: readonly CustomerRow[], phase: number): void {
    for (const r of rows) this.mergeCustomer(r, phase);
  }

  /** One acknowledged POST /webhooks/custom-api: a dedup key seen before changes nothing. */
  applyCustomerEvent(e: CustomerEvent, phase: number): void {
    const key = `${e.event_type}\u0000${e.external_id}`;
    if (this.eventKeys.has(key)) return;
    this.eventKeys.add(key);
    this.mergeCustomer(e, phase);
  }

  private customer(externalId: string, phase: number): ExpectedCustomer {
    let c = this.customers.get(externalId);
    if (!c) {
      this.optionalCustomers.delete(externalId);
      c = {
        externalId,
        email: null,
        name: null,
        street: null,
        city: null,
        state: null,
        zip: null,
        country: null,
        marketingEmail: false,
        sms: false,
        suppressed: false,
        bounced: false,
        subscriptionStatus: null,
        subscriptionStartedAt: null,
        phase,
      };
      this.customers.set(externalId, c);
    }
    if (phase >= 0) c.phase = phase;
    return c;
  }

  /** A value a record carries replaces the stored one; an omitted (null) value keeps it. */
  private mergeCustomer(r: CustomerRow, phase: number): void {
    const c = this.customer(r.external_id, phase);
    if (present(r.email)) c.email = r.email.toLowerCase();
    if (present(r.name)) c.name = r.name;
    const a = r.address;
    // The address is written as a whole, and only when street, city or zip is present.
    if (a && (present(a.street) || present(a.city) || present(a.zip))) {
      c.street = a.street ?? null;
      c.city = a.city ?? null;
      c.state = a.state ?? null;
      c.zip = a.zip ?? null;
      c.country = a.country ?? 'US';
    }
    const k = r.consent;
    if (k) {
      if (k.marketing_email != null) c.marketingEmail = k.marketing_email;
      if (k.sms != null) c.sms = k.sms;
      if (k.suppressed != null) c.suppressed = k.suppressed;
      if (k.bounced != null) c.bounced = k.bounced;
    }
    if (r.subscription_status != null) c.subscriptionStatus = r.subscription_status;
    // Write-once, earliest wins.
    if (present(r.subscription_started_at)) {
      const t = ms(r.subscription_started_at);
      c.subscriptionStartedAt = c.subscriptionStartedAt === null ? t : Math.min(c.subscriptionStartedAt, t);
    }
  }
}

/** A read-model orders row as read for the comparison. */
export interface OrderRowRead {
  order_id: string;
  external_customer_id: string;
  customer_id: string | null;
  order_date: Date;
  order_amount: string;
  product_name: string;
  email: string | null;
  source: string | null;
  currency: string;
  refunded_amount: string;
  cancelled_at: Date | null;
  discount_total: string | null;
}

/** A read-model customers row as read for the comparison. */
export interface CustomerRowRead {
  customer_id: string;
  external_id: string | null;
  email: string | null;
  name: string | null;
  address_street: string | null;
  address_city: string | null;
  address_state: string | null;
  address_zip: string | null;
  address_country: string | null;
  consent_marketing_email: boolean;
  consent_sms: boolean;
  consent_suppressed: boolean;
  consent_bounced: boolean;
  subscription_status: string | null;
  subscription_started_at: Date | null;
}

/** One disagreement between the model and the read models. */
export interface Finding {
  kind: 'lost' | 'duplicated' | 'wrong';
  table: 'orders' | 'customers' | 'pixel_events' | 'webhook_deliveries' | 'messages';
  key: string;
  /** The fault phase the row's last acknowledged write belongs to (-1: none). */
  phase: number;
  detail: string;
}

const num = (v: string | null): number | null => (v === null ? null : Math.round(Number(v) * 100) / 100);
const round2 = (v: number): number => Math.round(v * 100) / 100;
const time = (d: Date | null): number | null => (d === null ? null : d.getTime());

function diff(fields: [string, unknown, unknown][]): string | null {
  const bad = fields.filter(([, want, got]) => want !== got);
  return bad.length
    ? bad.map(([f, want, got]) => `${f}: want ${String(want)}, got ${String(got)}`).join('; ')
    : null;
}

/** Compares every orders and customers row of the account with the model. */
export function compareReadModels(
  model: MergeModel,
  orders: readonly OrderRowRead[],
  customers: readonly CustomerRowRead[],
): Finding[] {
  const out: Finding[] = [];
  const byExternal = new Map<string, CustomerRowRead[]>();
  for (const c of customers) {
    const k = c.external_id ?? `(no external id) ${c.customer_id}`;
    byExternal.set(k, [...(byExternal.get(k) ?? []), c]);
  }
  for (const [k, rows] of byExternal) {
    const want = model.customers.get(k);
    if (!want && model.optionalCustomers.has(k) && rows.length === 1) continue;
    if (!want || rows.length > 1)
      out.push({
        kind: 'duplicated',
        table: 'customers',
        key: k,
        phase: want?.phase ?? -1,
        detail: `${rows.length} row(s), ${want ? 'one' : 'none'} expected`,
      });
  }
  for (const want of model.customers.values()) {
    const got = byExternal.get(want.externalId)?.[0];
    if (!got) {
      out.push({
        kind: 'lost',
        table: 'customers',
        key: want.externalId,
        phase: want.phase,
        detail: 'no row',
      });
      continue;
    }
    const d = diff([
      ['email', want.email, got.email],
      ['name', want.name, got.name],
      ['address_street', want.street, got.address_street],
      ['address_city', want.city, got.address_city],
      ['address_state', want.state, got.address_state],
      ['address_zip', want.zip, got.address_zip],
      ['address_country', want.country, got.address_country],
      ['consent_marketing_email', want.marketingEmail, got.consent_marketing_email],
      ['consent_sms', want.sms, got.consent_sms],
      ['consent_suppressed', want.suppressed, got.consent_suppressed],
      ['consent_bounced', want.bounced, got.consent_bounced],
      ['subscription_status', want.subscriptionStatus, got.subscription_status],
      ['subscription_started_at', want.subscriptionStartedAt, time(got.subscription_started_at)],
    ]);
    if (d)
      out.push({ kind: 'wrong', table: 'customers', key: want.externalId, phase: want.phase, detail: d });
  }
  const customerIdOf = new Map<string, string>();
  for (const c of customers) if (c.external_id) customerIdOf.set(c.external_id, c.customer_id);
  const seen = new Map<string, number>();
  for (const o of orders) seen.set(o.order_id, (seen.get(o.order_id) ?? 0) + 1);
  for (const [id, n] of seen) {
    const want = model.orders.get(id);
    if (!want || n > 1)
      out.push({
        kind: 'duplicated',
        table: 'orders',
        key: id,
        phase: want?.phase ?? -1,
        detail: `${n} row(s), ${want ? 'one' : 'none'} expected`,
      });
  }
  const rowOf = new Map(orders.map((o) => [o.order_id, o]));
  for (const want of model.orders.values()) {
    const got = rowOf.get(want.orderId);
    if (!got) {
      out.push({ kind: 'lost', table: 'orders', key: want.orderId, phase: want.phase, detail: 'no row' });
      continue;
    }
    const d = diff([
      ['external_customer_id', want.externalCustomerId, got.external_customer_id],
      ['customer_id (resolved)', customerIdOf.get(want.externalCustomerId) ?? null, got.customer_id],
      ['order_date', want.orderDate, time(got.order_date)],
      ['order_amount', round2(want.orderAmount), num(got.order_amount)],
      ['product_name', want.productName, got.product_name],
      ['email', want.email, got.email],
      ['source', want.source, got.source],
      ['currency', want.currency, got.currency],
      ['refunded_amount', round2(want.refunded), num(got.refunded_amount)],
      ['cancelled_at', want.cancelledAt, time(got.cancelled_at)],
      [
        'discount_total',
        want.discountTotal === null ? null : round2(want.discountTotal),
        num(got.discount_total),
      ],
    ]);
    if (d) out.push({ kind: 'wrong', table: 'orders', key: want.orderId, phase: want.phase, detail: d });
  }
  return out;
}
