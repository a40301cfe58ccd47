// The mixed load of the chaos and soak benchmarks: four sequential client streams (orders with
// re-posts, customers with consent/address/subscription changes, custom-api webhooks, pixel
// batches), each retrying as a client must (5xx, 429, 503 and network errors: wait Retry-After or
// back off with jitter, then re-POST the same body, which is idempotent). Every acknowledged request
// is fed to the merge model in acknowledgement order.
import { randomUUID } from 'node:crypto';
import { MergeModel, type CustomerEvent, type CustomerRow, type OrderRow } from './merge-model.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Per-route outcome counters and latencies (ms, of each attempt that got an answer). */
export interface RouteStats {
  ok: number;
  /** Attempts answered 429 (retried after Retry-After: fine). */
  throttled: number;
  /** Attempts answered 5xx, or that got no answer (retried). */
  failedAttempts: number;
  /** Requests given up on after the retry deadline (the load's real failures). */
  gaveUp: number;
  /** Non-retriable answers (4xx other than 429): a bug in the load or the service. */
  rejected: number;
  lastRejection?: string;
  latencies: { at: number; ms: number }[];
}

/** A JSON client that retries as the README tells clients to, and counts what happened. */
export class RetryingClient {
  readonly stats = new Map<string, RouteStats>();
  /** Completion times of every 2xx answer (the pipeline's "moves again" signal). */
  readonly okTimes: number[] = [];
  /** Set by the caller to stop retrying (end of run). */
  abandon = false;

  constructor(
    private readonly baseUrl: string,
    private readonly giveUpAfterMs = 600_000,
    private readonly attemptTimeoutMs = 60_000,
  ) {}

  route(name: string): RouteStats {
    let s = this.stats.get(name);
    if (!s) {
      s = { ok: 0, throttled: 0, failedAttempts: 0, gaveUp: 0, rejected: 0, latencies: [] };
      this.stats.set(name, s);
    }
    return s;
  }

  /** POSTs until a 2xx (true) or a non-retriable answer / the deadline (false). */
  async post(route: string, path: string, body: unknown, headers: Record<string, string>): Promise<boolean> {
    const s = this.route(route);
    const payload = JSON.stringify(body);
    const until = Date.now() + this.giveUpAfterMs;
    for (let attempt = 0; ; attempt++) {
      const t0 = performance.now();
      let wait = Math.min(5000, 200 * 2 ** Math.min(attempt, 5)) * (0.5 + Math.random() / 2);
      try {
        const r = await fetch(`${this.baseUrl}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: payload,
          signal: AbortSignal.timeout(this.attemptTimeoutMs),
        });
        const text = await r.text();
        const now = Date.now();
        s.latencies.push({ at: now, ms: performance.now() - t0 });
        if (r.ok) {
          s.ok++;
          this.okTimes.push(now);
          return true;
        }
        const retryAfter = Number(r.headers.get('retry-after'));
        if (r.status === 429) s.throttled++;
        else if (r.status >= 500) s.failedAttempts++;
        else {
          s.rejected++;
          s.lastRejection = `${r.status} ${text.slice(0, 300)}`;
          return false;
        }
        if (Number.isFinite(retryAfter) && retryAfter > 0) wait = retryAfter * 1000;
      } catch {
        s.failedAttempts++;
      }
      if (this.abandon || Date.now() + wait > until) {
        s.gaveUp++;
        return false;
      }
      await sleep(wait);
    }
  }
}

export interface LoadOptions {
  /** Target new orders per second (plus one re-post per 6 new orders). */
  ordersPerSecond: number;
  ordersPerBatch: number;
  /** Customers of the customers stream, the webhook stream, and those only orders name. */
  customersA: number;
  customersB: number;
  customersO: number;
  customersPerBatch: number;
  customerBatchesPerSecond: number;
  webhooksPerSecond: number;
  pixelRequestsPerSecond: number;
  pixelEventsPerRequest: number;
  /** Stop creating orders after this many (re-posts go on while the load runs). */
  maxOrders?: number;
  /** Keep only the newest N orders (and no pixel ids) in memory: the soak's long runs, which do not
   * compare the read models, must not grow the client. */
  window?: number;
}

export interface Credentials {
  accountId: string;
  ordersKey: string;
  customersKey: string;
  webhookKey: string;
  pixelKey: string;
  origin: string;
}

const BASE_DATE = Date.UTC(2025, 0, 1);
const SOURCES = ['email', 'sms', 'paid_social', 'organic'];
const REPOST_KINDS = [
  'refund_forward',
  'refund_backward',
  'changed_order_date',
  'changed_customer_id',
  'cancel',
  'cancel_backward',
  'product_change',
] as const;
const CUSTOMER_KINDS = [
  'sms_stop',
  'unsubscribe',
  'grant_email',
  'bounce',
  'address_country_only',
  'address_new',
  'subscription_earlier',
  'subscription_later',
  'name_change',
] as const;

const email = (externalId: string) => `${externalId}@chaos.example`;

/** Sequential streams of mixed load, all acknowledged writes recorded in `model`. */
export class MixedLoad {
  readonly model = new MergeModel();
  readonly pixelAcked = new Set<string>();
  readonly counts = {
    orders: 0,
    reposts: 0,
    inBatchDuplicates: 0,
    customerRows: 0,
    webhooks: 0,
    pixelEvents: 0,
  };
  readonly repostKinds = new Map<string, number>();
  readonly customerKinds = new Map<string, number>();
  private stopped = false;
  private running: Promise<void>[] = [];
  private readonly lastOrderRow = new Map<string, OrderRow>();
  private readonly ackedOrderIds: string[] = [];
  private readonly ackedA: string[] = [];
  private readonly ackedB: string[] = [];
  private nextOrder = 0;
  private nextEvent = 0;
  private seq = 0;

  constructor(
    private readonly client: RetryingClient,
    private readonly creds: Credentials,
    private readonly opts: LoadOptions,
    /** The fault phase a request belongs to (read when it is first sent). */
    private readonly phase: () => number,
  ) {}

  start(): void {
    this.running = [
      this.loop(this.opts.ordersPerSecond / this.opts.ordersPerBatch, () => this.ordersBatch()),
      this.loop(this.opts.customerBatchesPerSecond, () => this.customersBatch()),
      this.loop(this.opts.webhooksPerSecond, () => this.webhook()),
      this.loop(this.opts.pixelRequestsPerSecond, () => this.pixelBatch()),
    ];
  }

  /** Stops sending new requests and waits for the ones in flight to be acknowledged. */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.running);
  }

  /** True once every stream has gone quiet (for the soak's per-minute figures). */
  get isStopped(): boolean {
    return this.stopped;
  }

  private async loop(perSecond: number, step: () => Promise<void>): Promise<void> {
    if (perSecond <= 0) return;
    const interval = 1000 / perSecond;
    let next = Date.now();
    while (!this.stopped) {
      await step();
      next += interval;
      const now = Date.now();
      // After an outage, carry on at the set pace rather than bursting to catch up.
      if (next < now - 2 * interval) next = now;
      await sleep(Math.max(0, next - now));
    }
  }

  private pickCustomer(i: number): string {
    const { customersA: a, customersB: b, customersO: o } = this.opts;
    const k = i % (a + b + o);
    return k < a ? `ca-${k}` : k < a + b ? `cb-${k - a}` : `co-${k - a - b}`;
  }

  private newOrder(n: number): OrderRow {
    const customer = this.pickCustomer((n * 7919) % 1_000_003);
    return {
      order_id: `o-${n}`,
      customer_id: customer,
      order_date: new Date(BASE_DATE + n * 60_000).toISOString(),
      order_amount: 10 + (n % 500) + 0.5,
      product_name: `p-${n % 97} v1`,
      email: email(customer),
      source: SOURCES[n % SOURCES.length]!,
      currency: n % 11 === 0 ? 'EUR' : 'USD',
      refunded_amount: null,
      cancelled_at: null,
      discount_total: n % 5 === 0 ? 2.5 : null,
    };
  }

  private repost(kind: (typeof REPOST_KINDS)[number], prev: OrderRow): OrderRow {
    const want = this.model.orders.get(prev.order_id)!;
    const v = ++this.seq;
    const row: OrderRow = { ...prev, product_name: `${prev.product_name.split(' ')[0]} r${v}` };
    switch (kind) {
      case 'refund_forward':
        row.refunded_amount = Math.min(prev.order_amount, want.refunded + 1.25);
        break;
      case 'refund_backward':
        // A stale refund (smaller than one already recorded) must not move it back.
        row.refunded_amount = Math.max(0, want.refunded - 1);
        break;
      case 'changed_order_date':
        row.order_date = new Date(new Date(prev.order_date).getTime() + 3 * 86_400_000).toISOString();
        break;
      case 'changed_customer_id':
        row.customer_id = `cx-${prev.order_id}-${v}`;
        break;
      case 'cancel':
        row.cancelled_at = new Date(BASE_DATE + 400 * 86_400_000 + v * 1000).toISOString();
        break;
      case 'cancel_backward':
        row.cancelled_at =
          want.cancelledAt === null ? null : new Date(want.cancelledAt - 86_400_000).toISOString();
        break;
      case 'product_change':
        row.source = SOURCES[v % SOURCES.length]!;
        row.discount_total = v % 2 ? 1.75 : null;
        break;
    }
    return row;
  }

  private async ordersBatch(): Promise<void> {
    const rows: OrderRow[] = [];
    const size = this.opts.ordersPerBatch;
    const max = this.opts.maxOrders ?? Infinity;
    const reposts = this.ackedOrderIds.length ? Math.floor(size / 7) : 0;
    let duplicates = 0;
    // At most `size` rows in all (the spec's limit is 5,000 per request), duplicates included.
    while (rows.length < size - reposts - 1 && this.nextOrder < max) {
      const n = this.nextOrder++;
      const row = this.newOrder(n);
      // Duplicate order ids in one batch: an earlier row that must lose to the later one.
      if (n % 97 === 0) {
        rows.push({ ...row, product_name: 'dup-loser', source: 'loser' });
        duplicates++;
      }
      rows.push(row);
    }
    const kinds: string[] = [];
    const picked = new Set<string>();
    for (let i = 0; i < reposts; i++) {
      const id = this.ackedOrderIds[Math.floor(Math.random() * this.ackedOrderIds.length)]!;
      if (picked.has(id)) continue;
      picked.add(id);
      const kind = REPOST_KINDS[(this.seq + i) % REPOST_KINDS.length]!;
      kinds.push(kind);
      rows.push(this.repost(kind, this.lastOrderRow.get(id)!));
    }
    if (!rows.length) return;
    const phase = this.phase();
    if (
      !(await this.client.post(
        'POST /ingest/orders',
        '/ingest/orders',
        { orders: rows },
        this.auth(this.creds.ordersKey),
      ))
    )
      return;
    this.model.applyOrderBatch(rows, phase);
    const last = new Map(rows.map((r) => [r.order_id, r]));
    for (const [id, r] of last) {
      if (!this.lastOrderRow.has(id)) this.ackedOrderIds.push(id);
      this.lastOrderRow.set(id, r);
    }
    const window = this.opts.window;
    if (window !== undefined && this.ackedOrderIds.length > window) {
      for (const id of this.ackedOrderIds.splice(0, this.ackedOrderIds.length - window)) {
        this.lastOrderRow.delete(id);
        this.model.orders.delete(id);
      }
    }
    this.counts.orders += rows.length - kinds.length - duplicates;
    this.counts.reposts += kinds.length;
    this.counts.inBatchDuplicates += duplicates;
    for (const k of kinds) this.repostKinds.set(k, (this.repostKinds.get(k) ?? 0) + 1);
  }

  private customerUpdate(kind: (typeof CUSTOMER_KINDS)[number], id: string): CustomerRow {
    const v = ++this.seq;
    const row: CustomerRow = { external_id: id, email: email(id) };
    switch (kind) {
      case 'sms_stop':
        row.consent = { sms: false };
        break;
      case 'unsubscribe':
        row.consent = { suppressed: true };
        break;
      case 'grant_email':
        row.consent = { marketing_email: true, sms: null };
        break;
      case 'bounce':
        row.consent = { bounced: true, marketing_email: false };
        break;
      case 'address_country_only':
        // No street, city or zip: the address is not written.
        row.address = { country: 'CA', state: 'ON' };
        break;
      case 'address_new':
        row.address = { street: `${v} Chaos Ave`, city: 'Springfield', zip: `${10_000 + (v % 89_999)}` };
        break;
      case 'subscription_earlier':
        row.subscription_status = 'paused';
        row.subscription_started_at = new Date(BASE_DATE - v * 60_000).toISOString();
        break;
      case 'subscription_later':
        row.subscription_status = 'cancelled';
        row.subscription_started_at = new Date(BASE_DATE + v * 60_000).toISOString();
        break;
      case 'name_change':
        row.name = `Name ${v}`;
        break;
    }
    return row;
  }

  private async customersBatch(): Promise<void> {
    const rows: CustomerRow[] = [];
    const kinds: string[] = [];
    const fresh = this.ackedA.length;
    for (let i = fresh; i < Math.min(this.opts.customersA, fresh + this.opts.customersPerBatch); i++) {
      const id = `ca-${i}`;
      rows.push({
        external_id: id,
        email: email(id),
        name: `Customer ${i}`,
        address: i % 2 ? { street: `${i} Main St`, city: 'Portland', state: 'OR', zip: '97201' } : null,
        consent: { marketing_email: true, sms: i % 3 === 0 },
        subscription_status: i % 4 === 0 ? 'active' : null,
        subscription_started_at: i % 4 === 0 ? new Date(BASE_DATE + i * 1000).toISOString() : null,
      });
    }
    const created = rows.length;
    while (rows.length < this.opts.customersPerBatch && this.ackedA.length) {
      const id = this.ackedA[Math.floor(Math.random() * this.ackedA.length)]!;
      const kind = CUSTOMER_KINDS[this.seq % CUSTOMER_KINDS.length]!;
      kinds.push(kind);
      rows.push(this.customerUpdate(kind, id));
    }
    if (!rows.length) return;
    const phase = this.phase();
    const ok = await this.client.post(
      'POST /ingest/customers',
      '/ingest/customers',
      { customers: rows },
      this.auth(this.creds.customersKey),
    );
    if (!ok) return;
    this.model.applyCustomerBatch(rows, phase);
    for (let i = 0; i < created; i++) this.ackedA.push(rows[i]!.external_id);
    this.counts.customerRows += rows.length;
    for (const k of kinds) this.customerKinds.set(k, (this.customerKinds.get(k) ?? 0) + 1);
  }

  private async webhook(): Promise<void> {
    const n = this.nextEvent++;
    let e: CustomerEvent;
    if (this.ackedB.length < this.opts.customersB) {
      const id = `cb-${this.ackedB.length}`;
      e = {
        event_type: 'signup',
        external_id: id,
        email: email(id),
        name: `Webhook ${id}`,
        consent: { marketing_email: true, sms: true },
      };
    } else {
      const id = this.ackedB[n % this.ackedB.length]!;
      // Every 10th event repeats an earlier dedup key with other content: it must change nothing.
      const type = n % 10 === 0 ? 'signup' : `update-${n}`;
      e = {
        event_type: type,
        external_id: id,
        email: email(id),
        ...(n % 3 === 0 ? { consent: { sms: false } } : {}),
        ...(n % 3 === 1 ? { address: { street: `${n} Hook Rd`, city: 'Eugene', zip: '97401' } } : {}),
        ...(n % 3 === 2 ? { name: `Webhook ${id} v${n}`, consent: { suppressed: n % 2 === 0 } } : {}),
      };
    }
    const phase = this.phase();
    const ok = await this.client.post(
      'POST /webhooks/custom-api',
      '/webhooks/custom-api',
      e,
      this.auth(this.creds.webhookKey),
    );
    if (!ok) return;
    this.model.applyCustomerEvent(e, phase);
    if (e.event_type === 'signup' && !this.ackedB.includes(e.external_id)) this.ackedB.push(e.external_id);
    this.counts.webhooks++;
  }

  private async pixelBatch(): Promise<void> {
    const now = Date.now();
    const events = Array.from({ length: this.opts.pixelEventsPerRequest }, (_, i) => ({
      event_id: randomUUID(),
      event_type: i % 5 === 0 ? 'product_view' : 'page_view',
      occurred_at: new Date(now - i * 1000).toISOString(),
      anonymous_id: `anon-${i % 13}`,
      session_id: `sess-${i % 5}`,
      url_path: `/products/p-${i}`,
      consent_state: 'granted',
    }));
    const ok = await this.client.post(
      'POST /pixel/collect',
      '/pixel/collect',
      { key: this.creds.pixelKey, events },
      { origin: this.creds.origin },
    );
    if (!ok) return;
    if (this.opts.window === undefined) for (const e of events) this.pixelAcked.add(e.event_id);
    this.counts.pixelEvents += events.length;
  }

  private auth(key: string): Record<string, string> {
    return { authorization: `Bearer ${key}` };
  }
}
