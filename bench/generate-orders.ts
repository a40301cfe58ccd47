/**
 * Realistic generated orders for benchmarks and load tests: two years of dates, skewed amounts,
 * a few currencies, emails, phones, names, product names, a share of refunds and of re-posts.
 * Deterministic for a seed (mulberry32), so two runs send the same data.
 */
import { mulberry32 } from '@holdfast/testing';

export interface GenOptions {
  readonly seed?: number;
  /** Distinct customers (each order picks one; repeat buyers emerge). */
  readonly customers?: number;
  /** Share of rows that re-post an earlier order (a refund or a plain re-send). */
  readonly repostShare?: number;
  readonly start?: Date;
}

const FIRST = ['Ann', 'Bo', 'Chen', 'Dara', 'Eli', 'Fatima', 'Gus', 'Hana', 'Ivo', 'June', 'Kofi', 'Lena'];
const LAST = ['Smith', 'Garcia', 'Okafor', 'Nguyen', 'Muller', 'Rossi', 'Kowalski', 'Silva', 'Tanaka'];
const PRODUCTS = [
  'Green Tea 100g',
  'Oolong Sampler',
  'Ceramic Mug',
  'Matcha Whisk',
  'Chai Blend',
  'Gift Box',
];
const CURRENCIES = ['USD', 'USD', 'USD', 'USD', 'EUR', 'GBP', 'CAD'];
const SOURCES = ['email', 'sms', 'paid_social', 'organic', 'referral', null];

export type GeneratedOrder = Record<string, string | number | string[] | null>;

/** Yields `n` order rows (lazily: a million rows never sit in memory at once). */
export function* generateOrders(n: number, opts: GenOptions = {}): Generator<GeneratedOrder> {
  const rand = mulberry32(opts.seed ?? 42);
  const customers = opts.customers ?? Math.max(10, Math.floor(n / 3));
  const repost = opts.repostShare ?? 0.03;
  const start = (opts.start ?? new Date('2024-11-22T00:00:00Z')).getTime();
  const span = 730 * 86_400_000;
  let emitted = 0;
  for (let i = 0; i < n; i++) {
    const isRepost = emitted > 100 && rand() < repost;
    const id = isRepost ? Math.floor(rand() * emitted) : emitted++;
    const r = mulberry32(id * 7919 + 1);
    const c = Math.floor(r() * customers);
    const cr = mulberry32(c * 104729 + 3);
    const first = FIRST[Math.floor(cr() * FIRST.length)]!;
    const last = LAST[Math.floor(cr() * LAST.length)]!;
    const amount = Math.round(Math.exp(3 + r() * 1.6) * 100) / 100;
    const refunded = isRepost && rand() < 0.7 ? Math.round(amount * (0.2 + 0.8 * rand()) * 100) / 100 : null;
    yield {
      order_id: `o-${id}`,
      customer_id: `c-${c}`,
      order_date: new Date(start + Math.floor(r() * span)).toISOString(),
      order_amount: amount,
      product_name: PRODUCTS[Math.floor(r() * PRODUCTS.length)]!,
      email: `${first.toLowerCase()}.${last.toLowerCase()}.${c}@example.com`,
      phone: cr() < 0.6 ? `+1 (415) 555-${String(1000 + (c % 9000)).padStart(4, '0')}` : null,
      customer_name: `${first} ${last}`,
      source: SOURCES[Math.floor(r() * SOURCES.length)]!,
      currency: CURRENCIES[Math.floor(r() * CURRENCIES.length)]!,
      shipping_city: 'Springfield',
      shipping_state: 'IL',
      shipping_zip: String(60000 + (c % 999)),
      refunded_amount: refunded,
      discount_codes: r() < 0.1 ? ['WELCOME10'] : null,
    };
  }
}
