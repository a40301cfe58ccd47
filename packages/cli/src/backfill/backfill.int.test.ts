import { createWriteStream, existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCaptured } from '../testing/capture.js';
import { FakeIngest } from '../testing/fake-ingest.js';
import { FaultProxy, type Fault } from '../testing/fault-proxy.js';
import type { BackfillSummary } from './summary.js';

const KEY = 'tk_live_backfilltestbackfilltestbackfil';
let dir: string;
const closers: (() => Promise<void>)[] = [];
beforeAll(async () => (dir = await mkdtemp(join(tmpdir(), 'holdfast-backfill-'))));
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Writes an orders CSV of `n` rows through a stream (the test itself holds no big string). */
async function ordersCsv(name: string, n: number): Promise<string> {
  const path = join(dir, name);
  const out = createWriteStream(path);
  out.write(
    'order_id,customer_id,order_date,order_amount,product_name,email,discount_codes,refunded_amount\n',
  );
  for (let i = 1; i <= n; i++) {
    const line = `o-${i},c-${i % 7919},2025-0${(i % 9) + 1}-1${i % 10}T10:00:00Z,${(i % 500) + 0.99},"Widget, large",c${i % 7919}@example.com,${i % 3 ? '' : 'SPRING|VIP'},\n`;
    if (!out.write(line)) await new Promise<void>((r) => out.once('drain', () => r()));
  }
  out.end();
  await finished(out);
  return path;
}

async function receiver(opts: { maxRows?: number; maxBytes?: number } = {}): Promise<FakeIngest> {
  const r = await new FakeIngest({ key: KEY, ...opts }).start();
  closers.push(() => r.close());
  return r;
}

async function proxy(upstream: string, schedule: (n: number) => Fault): Promise<FaultProxy> {
  const p = await new FaultProxy(upstream, schedule).start();
  closers.push(() => p.close());
  return p;
}

const FAULTS: Record<number, Fault> = {
  2: 'rate-limit',
  3: 'too-large-plain',
  5: 'too-large-json',
  7: 'drop-before',
  9: 'drop-after',
  11: 'server-error',
  14: 'rate-limit',
  17: 'drop-before',
  20: 'too-large-plain',
  23: 'drop-after',
};

describe('holdfast backfill', () => {
  it('delivers 100,000 orders exactly once through 429s, 413s, 500s and dropped connections', async () => {
    const file = await ordersCsv('orders-100k.csv', 100_000);
    const sink = await receiver();
    const faulty = await proxy(sink.url, (n) => FAULTS[n] ?? 'pass');
    const r = await runCaptured(
      [
        'backfill',
        'orders',
        file,
        '--url',
        faulty.url,
        '--key',
        KEY,
        '--json',
        '--retry-base-ms',
        '20',
        '--progress-interval',
        '500',
      ],
      {},
    );
    expect(r.code, r.stderr).toBe(0);
    const s = r.json<BackfillSummary>();
    expect(s).toMatchObject({
      status: 'completed',
      exit_code: 0,
      format: 'csv',
      rows_read: 100_000,
      rows_sent: 100_000,
      rows_skipped: 0,
      accepted: 100_000,
      dropped: 0,
      row_errors: 0,
      rate_limited: 2,
      server_errors: 1,
      network_errors: 4,
      splits_by_bytes: 2,
      splits_by_rows: 1,
      requests: faulty.requests,
      error_report: `${file}.holdfast-errors.ndjson`,
      checkpoint: null,
    });
    // Every order exactly once: the only repeats are rows whose answer the proxy dropped after the write.
    expect(sink.receptions.size).toBe(100_000);
    for (let i = 1; i <= 100_000; i += 997) expect(sink.receptions.has(`o-${i}`)).toBe(true);
    const total = [...sink.receptions.values()].reduce((a, b) => a + b, 0);
    expect(faulty.rowsAcceptedThenDropped).toBeGreaterThan(0);
    expect(total).toBe(100_000 + faulty.rowsAcceptedThenDropped);
    expect(sink.rows.get('o-3')).toEqual({
      order_id: 'o-3',
      customer_id: 'c-3',
      order_date: '2025-04-13T10:00:00Z',
      order_amount: 3.99,
      product_name: 'Widget, large',
      email: 'c3@example.com',
      discount_codes: ['SPRING', 'VIP'],
    });
    expect(existsSync(`${file}.holdfast-progress.json`)).toBe(false);
    expect(readFileSync(s.error_report, 'utf8')).toBe('');
    expect(r.stderr).toMatch(/backfill: rate limited \(429\): waiting 1s\n/);
    expect(r.stderr).toMatch(
      /backfill: \d[\d,]* rows {2}[\d,]+ rows\/s {2}[\d.]+% {2}ETA \d+:\d\d {2}accepted [\d,]+ {2}dropped 0\n/,
    );
  });

  it('pages down to an endpoint with smaller limits (plain 413 by bytes, JSON 413 by rows)', async () => {
    const file = await ordersCsv('orders-small-limits.csv', 12_000);
    const bytes = await receiver({ maxBytes: 150_000 });
    const r1 = await runCaptured(
      ['backfill', 'orders', file, '--url', bytes.url, '--key', KEY, '--json'],
      {},
    );
    expect(r1.code, r1.stderr).toBe(0);
    expect(r1.json<BackfillSummary>().splits_by_bytes).toBeGreaterThan(0);
    expect(bytes.receptions.size).toBe(12_000);
    expect(Math.max(...bytes.receptions.values())).toBe(1);

    const rows = await receiver({ maxRows: 1000 });
    const r2 = await runCaptured(['backfill', 'orders', file, '--url', rows.url, '--key', KEY, '--json'], {});
    expect(r2.code, r2.stderr).toBe(0);
    expect(r2.json<BackfillSummary>()).toMatchObject({
      splits_by_rows: 15,
      splits_by_bytes: 0,
      accepted: 12_000,
    });
    expect(rows.receptions.size).toBe(12_000);
  });

  it('stops on a 4xx, keeps a checkpoint, and resumes without resending what was acknowledged', async () => {
    const file = await ordersCsv('orders-resume.csv', 40_000);
    const sink = await receiver();
    const refusing = await proxy(sink.url, (n) => (n === 4 ? 'refuse' : 'pass'));
    const first = await runCaptured(
      ['backfill', 'orders', file, '--url', refusing.url, '--key', KEY, '--json', '--batch-rows', '2000'],
      {},
    );
    expect(first.code).toBe(2);
    const s1 = first.json<BackfillSummary>();
    expect(s1.status).toBe('stopped');
    expect(s1.checkpoint).toBe(`${file}.holdfast-progress.json`);
    expect(first.stderr).toMatch(
      /^holdfast: the endpoint refused rows \d+-\d+: 400 refused by the test \(the endpoint refused the batch as malformed\); fix the cause, then re-run the same command to resume: acknowledged rows are skipped\n$/m,
    );
    const saved = JSON.parse(readFileSync(s1.checkpoint!, 'utf8')) as { completed: [number, number][] };
    const done = saved.completed.reduce((n, [a, b]) => n + b - a + 1, 0);
    expect(done).toBe(s1.rows_sent);
    expect(sink.receptions.size).toBe(done);

    const second = await runCaptured(
      ['backfill', 'orders', file, '--url', sink.url, '--key', KEY, '--json', '--batch-rows', '2000'],
      {},
    );
    expect(second.code, second.stderr).toBe(0);
    const s2 = second.json<BackfillSummary>();
    expect(s2).toMatchObject({
      status: 'completed',
      rows_skipped: done,
      rows_sent: 40_000 - done,
      checkpoint: null,
    });
    expect(sink.receptions.size).toBe(40_000);
    expect(Math.max(...sink.receptions.values())).toBe(1);
    expect(existsSync(`${file}.holdfast-progress.json`)).toBe(false);
  });

  it('refuses a wrong key with a hint, and an outbound key before sending anything', async () => {
    const file = await ordersCsv('orders-key.csv', 10);
    const sink = await receiver();
    const wrong = await runCaptured(
      ['backfill', 'orders', file, '--url', sink.url, '--key', 'tk_live_wrong'],
      {},
    );
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain(
      '401 Invalid or revoked key (the key was refused: check --key (an ingest key tk_live_ or tk_test_, not revoked or expired))',
    );
    expect(wrong.stdout).toContain('Backfill of orders from');
    const sk = await runCaptured(['backfill', 'orders', file, '--url', sink.url, '--key', 'sk_live_abc'], {});
    expect([sk.code, sk.stderr]).toEqual([
      2,
      'holdfast: sk_live_ keys are for outbound webhooks and do not authorize ingest: use a tk_live_ key\n',
    ]);
    const missing = await runCaptured(
      ['backfill', 'orders', join(dir, 'nope.csv'), '--url', sink.url, '--key', KEY],
      {},
    );
    expect([missing.code, missing.stderr]).toEqual([3, `holdfast: no file ${join(dir, 'nope.csv')}\n`]);
    const noUrl = await runCaptured(['backfill', 'orders', file, '--key', KEY], {});
    expect([noUrl.code, noUrl.stderr]).toEqual([
      2,
      'holdfast: no endpoint: pass --url (e.g. http://127.0.0.1:8080) or set HOLDFAST_BASE_URL\n',
    ]);
    expect(sink.receptions.size).toBe(0);
  });
});
