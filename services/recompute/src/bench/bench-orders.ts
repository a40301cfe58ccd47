// Synthetic order histories for the recompute benchmark, written with COPY straight into the read
// models (the projector is not what this benchmark measures).
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { from as copyFrom } from 'pg-copy-streams';
import type { Pool } from '@holdfast/db';

const DAY_MS = 86_400_000;

/** mulberry32: a small seeded generator, so every run loads the same histories. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** What was loaded. */
export interface LoadedOrders {
  readonly customers: number;
  readonly orders: number;
}

/**
 * Loads `customers` customers of `accountId` with their orders over the two years before `asOf`:
 * about 40% buy again, at a customer-specific rate (a Gamma-Poisson mix, as BG/NBD assumes), some
 * orders are partly refunded and a few cancelled.
 */
export async function loadSyntheticOrders(
  pool: Pool,
  schema: string,
  accountId: string,
  customers: number,
  asOf: Date,
): Promise<LoadedOrders> {
  const rnd = seeded(20_261_122);
  const start = asOf.getTime() - 730 * DAY_MS;
  const ids: string[] = Array.from({ length: customers }, () => randomUUID());
  let orders = 0;
  function* orderLines(): Generator<string> {
    let lines: string[] = [];
    for (let i = 0; i < customers; i++) {
      const first = start + Math.floor(rnd() * 700) * DAY_MS + Math.floor(rnd() * DAY_MS);
      const repeater = rnd() < 0.4;
      const gapDays = 10 + rnd() * rnd() * 200;
      let at = first;
      let n = 0;
      while (at < asOf.getTime() && n < 60) {
        const amount = (10 + rnd() * 140).toFixed(2);
        const refunded = rnd() < 0.05 ? (Number(amount) / 2).toFixed(2) : '0';
        const cancelled = rnd() < 0.01 ? new Date(at + DAY_MS).toISOString() : '\\N';
        const date = new Date(at).toISOString();
        lines.push(
          `${accountId}\to-${i}-${n}\t${ids[i]}\tc-${i}\t${date}\t${amount}\tbench\t${refunded}\t${cancelled}\t${date}\t${date}`,
        );
        n++;
        if (!repeater) break;
        at += Math.max(1, -Math.log(1 - rnd()) * gapDays) * DAY_MS;
      }
      orders += n;
      if (lines.length >= 5000) {
        yield `${lines.join('\n')}\n`;
        lines = [];
      }
    }
    if (lines.length) yield `${lines.join('\n')}\n`;
  }
  function* customerLines(): Generator<string> {
    const created = new Date(start).toISOString();
    for (let i = 0; i < customers; i += 5000) {
      const end = Math.min(customers, i + 5000);
      const lines: string[] = [];
      for (let j = i; j < end; j++) lines.push(`${accountId}\t${ids[j]}\tc-${j}\t${created}\t${created}`);
      yield `${lines.join('\n')}\n`;
    }
  }
  const client = await pool.connect();
  try {
    await pipeline(
      Readable.from(orderLines()),
      client.query(
        copyFrom(`copy "${schema}".orders (account_id, order_id, customer_id, external_customer_id, order_date,
          order_amount, product_name, refunded_amount, cancelled_at, first_seen_at, updated_at) from stdin`),
      ),
    );
    await pipeline(
      Readable.from(customerLines()),
      client.query(
        copyFrom(
          `copy "${schema}".customers (account_id, customer_id, external_id, created_at, updated_at) from stdin`,
        ),
      ),
    );
    await client.query(`analyze "${schema}".orders; analyze "${schema}".customers`);
  } finally {
    client.release();
  }
  return { customers, orders };
}
