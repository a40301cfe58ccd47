// npm run bench -- summary [--orders 1200000] [--runs 3]: the RFM summary (@holdfast/analytics'
// CustomerDays, what the recompute folds its orders into) over the same number of orders in two shapes:
// about 2.4 orders per customer (the recompute bench's CDNOW-like accounts) and 80 per customer (weekly
// replenishment), each fed as a live table holds them (customers interleaved) and newest first. The
// figure is µs per order; linear in orders means the shapes cost alike.
import { CustomerDays, toUtcDay } from '@holdfast/analytics';
import { report } from './report.js';
import { repeat } from './runs.js';

interface Shape {
  readonly name: string;
  readonly perCustomer: number;
  readonly newestFirst: boolean;
}

const SHAPES: readonly Shape[] = [
  { name: '2.4/customer, table order', perCustomer: 2.4, newestFirst: false },
  { name: '2.4/customer, newest first', perCustomer: 2.4, newestFirst: true },
  { name: '80/customer, table order', perCustomer: 80, newestFirst: false },
  { name: '80/customer, newest first', perCustomer: 80, newestFirst: true },
];

const END = toUtcDay('2026-11-22');

/** Orders as (customer index, day, amount) columns: `orders` in all, `perCustomer` each on average. */
function generate(orders: number, perCustomer: number, newestFirst: boolean) {
  const customers = Math.max(1, Math.round(orders / perCustomer));
  const customer = new Int32Array(orders);
  const day = new Int32Array(orders);
  const amount = new Float64Array(orders);
  let seed = 1;
  const rnd = () => (seed = (Math.imul(seed, 48_271) >>> 0) % 2_147_483_647) / 2_147_483_647;
  // Round-robin over customers, each one's orders about a week apart: the order a live feed writes.
  const next = Int32Array.from({ length: customers }, () => END - 728 + Math.floor(rnd() * 56));
  for (let i = 0; i < orders; i++) {
    const c = i % customers;
    customer[i] = c;
    day[i] = next[c]!;
    next[c]! += 5 + Math.floor(rnd() * 5);
    amount[i] = Math.round(rnd() * 10_000) / 100;
  }
  if (newestFirst) {
    customer.reverse();
    day.reverse();
    amount.reverse();
  }
  const ids = Array.from({ length: customers }, (_, c) => `customer-${c}`);
  return { customer, day, amount, ids };
}

export async function benchSummary(args: Record<string, string>): Promise<void> {
  const orders = Number(args.orders ?? 1_200_000);
  const runs = Number(args.runs ?? 3);
  const figures: Record<string, number> = {};
  const table: [string, string | number][] = [];
  for (const shape of SHAPES) {
    const data = generate(orders, shape.perCustomer, shape.newestFirst);
    const {
      median,
      figures: all,
      loads,
    } = await repeat(
      `summary ${shape.name}`,
      runs,
      () => {
        const t = performance.now();
        const acc = new CustomerDays();
        for (let i = 0; i < orders; i++) acc.add(data.ids[data.customer[i]!]!, data.day[i]!, data.amount[i]!);
        acc.columns(END, 7);
        return Promise.resolve(((performance.now() - t) * 1000) / orders);
      },
      (us) => Number(us.toFixed(3)),
    );
    figures[shape.name] = median;
    table.push([`µs per order, ${shape.name}`, `${median} (runs ${all.join(' ')}; load ${loads.join(' ')})`]);
  }
  const ratio = figures['80/customer, table order']! / figures['2.4/customer, table order']!;
  table.push(['80/customer ÷ 2.4/customer (table order)', Number(ratio.toFixed(2))]);
  report(
    'summary',
    { orders, runs, us_per_order: figures, ratio_80_to_2_4: Number(ratio.toFixed(2)) },
    table,
  );
}
