import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the receiver enforces; the spec's values by default. */
export interface FakeIngestOptions {
  readonly key: string;
  readonly maxRows?: number;
  readonly maxBytes?: number;
}

type Row = Record<string, unknown>;

/**
 * A small, honest stand-in for POST /ingest/orders and /ingest/customers, for testing clients against
 * the spec's semantics while the real gateway is elsewhere: bearer auth, the 32 MiB plain-text 413
 * (checked while the body streams in), the 5,000-row JSON 413, the 422 for a missing or mistyped
 * required order field, idempotent upserts on order_id (or external_id), and dry runs that write
 * nothing and list at most 50 errors.
 */
export class FakeIngest {
  /** How many times each id was received in a real (not dry-run) call that answered 200. */
  readonly receptions = new Map<string, number>();
  /** The last row written for each id (upsert semantics). */
  readonly rows = new Map<string, Row>();
  requests = 0;
  private server!: Server;
  url = '';

  constructor(private readonly o: FakeIngestOptions) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.requests += 1;
    const json = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    const url = new URL(req.url ?? '/', 'http://x');
    const kind =
      url.pathname === '/ingest/orders'
        ? 'orders'
        : url.pathname === '/ingest/customers'
          ? 'customers'
          : null;
    if (req.method !== 'POST' || !kind) return json(404, { detail: 'Not Found' });
    if (req.headers.authorization !== `Bearer ${this.o.key}`)
      return json(401, { detail: 'Invalid or revoked key' });
    const maxBytes = this.o.maxBytes ?? 32 * 1024 * 1024;
    const chunks: Buffer[] = [];
    let size = 0;
    // Past the limit the rest is drained unread, so the client reliably gets the 413 rather than a reset.
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size <= maxBytes) chunks.push(chunk);
    }
    if (size > maxBytes)
      return void res.writeHead(413, { 'content-type': 'text/plain' }).end('payload too large');
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
    } catch {
      return json(422, { detail: [{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' }] });
    }
    const list = body[kind];
    if (!Array.isArray(list))
      return json(422, { detail: [{ loc: ['body', kind], msg: 'Field required', type: 'missing' }] });
    if (!list.length) return json(400, { detail: 'Empty batch' });
    const maxRows = this.o.maxRows ?? 5000;
    if (list.length > maxRows)
      return json(413, { detail: `Batch too large (${list.length} > ${maxRows}). Page your upload.` });
    const rows = list as Row[];
    const dryRun = url.searchParams.get('dry_run') === 'true';
    if (kind === 'customers') return json(200, this.customers(rows, dryRun));
    const problems = rows.flatMap((r, i) => requiredProblems(r, i));
    if (problems.length) return json(422, { detail: problems });
    const errors: { index: number; order_id: string; codes: string[] }[] = [];
    rows.forEach((r, i) => {
      if (Number.isNaN(Date.parse(String(r.order_date))) || !Number.isFinite(r.order_amount))
        errors.push({ index: i, order_id: String(r.order_id), codes: ['unparseable_order_date_or_amount'] });
    });
    const accepted = rows.length - errors.length;
    if (dryRun)
      return json(200, {
        dry_run: true,
        received: rows.length,
        would_accept: accepted,
        would_drop: errors.length,
        errors: errors.slice(0, 50),
        errors_truncated: Math.max(0, errors.length - 50),
        warnings: [],
        next: 'POST again without dry_run to write',
      });
    const bad = new Set(errors.map((e) => e.index));
    rows.forEach((r, i) => {
      if (bad.has(i)) return;
      this.record(String(r.order_id), r);
    });
    return json(200, {
      received: rows.length,
      distinct_order_ids: new Set(rows.map((r) => r.order_id)).size,
      deduped_in_batch: rows.length - new Set(rows.map((r) => r.order_id)).size,
      accepted,
      dropped_invalid: errors.length,
      orders_upserted: accepted,
      customers_upserted: 0,
      naive_timestamps: 0,
      next: 'POST /ingest/sync after large loads',
    });
  }

  private record(id: string, r: Row): void {
    this.receptions.set(id, (this.receptions.get(id) ?? 0) + 1);
    this.rows.set(id, r);
  }

  private customers(rows: Row[], dryRun: boolean) {
    const skipped = rows.filter((r) => !r.external_id && !r.email && !r.phone).length;
    if (!dryRun) for (const r of rows) if (typeof r.external_id === 'string') this.record(r.external_id, r);
    return {
      received: rows.length,
      customers_upserted: rows.length - skipped,
      skipped_no_identity: skipped,
      subscriptions_applied: 0,
    };
  }
}

const REQUIRED: readonly [string, 'string' | 'number'][] = [
  ['order_id', 'string'],
  ['customer_id', 'string'],
  ['order_date', 'string'],
  ['order_amount', 'number'],
  ['product_name', 'string'],
];

function requiredProblems(r: Row, i: number) {
  return REQUIRED.flatMap(([field, type]) => {
    const v = r[field];
    if (v === undefined || v === null)
      return [{ loc: ['body', 'orders', i, field], msg: 'Field required', type: 'missing' }];
    if (typeof v !== type || (type === 'string' && v === ''))
      return [
        { loc: ['body', 'orders', i, field], msg: `Input should be a valid ${type}`, type: `${type}_type` },
      ];
    return [];
  });
}
