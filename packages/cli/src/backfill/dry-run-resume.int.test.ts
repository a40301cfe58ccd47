import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCaptured } from '../testing/capture.js';
import { FakeIngest } from '../testing/fake-ingest.js';
import { FaultProxy } from '../testing/fault-proxy.js';
import { runBackfill } from './run.js';
import type { BackfillSummary } from './summary.js';

const KEY = 'tk_test_dryrundryrundryrundryrundryrun';
let dir: string;
let sink: FakeIngest;
beforeAll(async () => (dir = await mkdtemp(join(tmpdir(), 'holdfast-dry-run-'))));
afterEach(() => sink?.close());
afterAll(() => rm(dir, { recursive: true, force: true }));

const order = (i: number, over: Record<string, unknown> = {}) =>
  JSON.stringify({
    order_id: `o-${i}`,
    customer_id: `c-${i % 50}`,
    order_date: '2025-03-01T12:00:00+01:00',
    order_amount: i + 0.5,
    product_name: 'Mug',
    ...over,
  });

describe('holdfast backfill --dry-run', () => {
  it('validates the whole file, writes nothing, and reports every bad row with its line', async () => {
    sink = await new FakeIngest({ key: KEY }).start();
    const lines: string[] = [];
    for (let i = 1; i <= 3000; i++) {
      if (i === 50) lines.push('');
      if (i === 2000) lines.push('{oops');
      const bad =
        i <= 120
          ? { order_date: 'not-a-date' }
          : [1500, 1501, 2500].includes(i)
            ? { order_amount: '12' }
            : {};
      lines.push(order(i, bad));
    }
    const file = join(dir, 'orders.ndjson');
    writeFileSync(file, `${lines.join('\n')}\n`);
    const lineOf = (i: number) => (i < 50 ? i : i < 2000 ? i + 1 : i + 2);

    const r = await runCaptured(
      [
        'backfill',
        'orders',
        file,
        '--url',
        sink.url,
        '--key',
        KEY,
        '--dry-run',
        '--json',
        '--batch-rows',
        '1000',
      ],
      {},
    );
    expect(r.code).toBe(2);
    const s = r.json<BackfillSummary>();
    expect(s).toMatchObject({
      status: 'completed',
      dry_run: true,
      format: 'ndjson',
      rows_read: 3001,
      accepted: 2877,
      dropped: 120,
      row_errors: 124,
      checkpoint: null,
      message: `124 row(s) would not be accepted: see ${file}.holdfast-errors.ndjson`,
    });
    expect(r.stderr).toMatch(
      /^backfill: 3,001 rows {2}[\d,]+ rows\/s {2}100\.0% {2}ETA 0:00 {2}accepted 2,877 {2}dropped 120\n/,
    );
    expect(r.stderr.split('\n').at(-2)).toBe(
      `holdfast: 124 row(s) would not be accepted: see ${file}.holdfast-errors.ndjson`,
    );
    expect(sink.receptions.size).toBe(0);
    const report = readFileSync(s.error_report, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { line: number; order_id: string | null; codes: string[] });
    expect(report).toHaveLength(124);
    const byId = new Map(report.map((e) => [e.order_id, e]));
    for (let i = 1; i <= 120; i++)
      expect(byId.get(`o-${i}`)).toEqual({
        line: lineOf(i),
        row: i,
        order_id: `o-${i}`,
        codes: ['unparseable_order_date_or_amount'],
      });
    expect(byId.get('o-1500')).toEqual({
      line: lineOf(1500),
      row: 1500,
      order_id: 'o-1500',
      codes: ['number_type:order_amount'],
    });
    expect(byId.get('o-2500')).toMatchObject({
      line: lineOf(2500),
      row: 2501,
      codes: ['number_type:order_amount'],
    });
    expect(byId.get(null)).toEqual({ line: 2001, row: 2000, order_id: null, codes: ['invalid_json'] });
  });
});

describe('holdfast backfill inputs', () => {
  it('reads NDJSON from stdin and redraws progress in place on a terminal', async () => {
    sink = await new FakeIngest({ key: KEY }).start();
    const rows = [order(1, { discount_codes: ['A'], shipping_city: 'Oslo' }), order(2), order(3)];
    const errors = join(dir, 'stdin-errors.ndjson');
    const r = await runCaptured(
      ['backfill', 'orders', '-', '--url', `${sink.url}/`, '--key', KEY, '--errors', errors, '--json'],
      {},
      { stdin: Readable.from([Buffer.from(`${rows.join('\n')}\n`)]), tty: true },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.json<BackfillSummary>()).toMatchObject({
      file: '-',
      format: 'ndjson',
      accepted: 3,
      checkpoint: null,
      error_report: errors,
    });
    expect(sink.rows.get('o-1')).toEqual(JSON.parse(rows[0]!));
    // stdin has no size: no bar or ETA, one line redrawn in place.
    // eslint-disable-next-line no-control-regex -- the terminal's erase-line sequence is the point
    expect(r.stderr).toMatch(/^\r3 rows {2}[\d,]+ rows\/s {2}accepted 3 {2}dropped 0\x1b\[K\n$/);
  });

  it('converts a customers CSV: dotted headers nest, consent becomes boolean, bad cells are reported', async () => {
    sink = await new FakeIngest({ key: KEY }).start();
    const file = join(dir, 'customers.csv');
    writeFileSync(
      file,
      'external_id,email,consent.sms,consent.marketing_email,address.city,address.zip,subscription_status\r\n' +
        'c-1,a@example.com,yes,false,"Portland, OR",97201,active\r\n' +
        'c-2,,0,,,,\r\n' +
        'c-3,c@example.com,maybe,,,,\r\n',
    );
    const r = await runCaptured(['backfill', 'customers', file, '--url', sink.url, '--key', KEY], {});
    expect(r.code, r.stderr).toBe(0);
    expect(sink.rows.get('c-1')).toEqual({
      external_id: 'c-1',
      email: 'a@example.com',
      consent: { sms: true, marketing_email: false },
      address: { city: 'Portland, OR', zip: '97201' },
      subscription_status: 'active',
    });
    expect(sink.rows.get('c-2')).toEqual({ external_id: 'c-2', consent: { sms: false } });
    expect(sink.rows.has('c-3')).toBe(false);
    expect(readFileSync(`${file}.holdfast-errors.ndjson`, 'utf8')).toBe(
      '{"line":4,"row":3,"external_id":"c-3","codes":["not_a_boolean:consent.sms"]}\n',
    );
    expect(r.stdout).toContain('  accepted 2, dropped 0, row errors 1\n');
  });

  it('stops on a malformed CSV with the line to fix', async () => {
    sink = await new FakeIngest({ key: KEY }).start();
    const file = join(dir, 'broken.csv');
    writeFileSync(file, 'order_id,customer_id\no-1,c-1\no-2,"c-2\n');
    const r = await runCaptured(['backfill', 'orders', file, '--url', sink.url, '--key', KEY], {});
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^holdfast: CSV line 3: Quote Not Closed/m);
  });
});

describe('holdfast backfill after an interruption', () => {
  it('resumes from the checkpoint and sends every order exactly once', async () => {
    sink = await new FakeIngest({ key: KEY }).start();
    const file = join(dir, 'interrupted.ndjson');
    writeFileSync(file, `${Array.from({ length: 20_000 }, (_, i) => order(i + 1)).join('\n')}\n`);
    const ac = new AbortController();
    const proxy = await new FaultProxy(sink.url, (n) => {
      if (n === 3) ac.abort();
      return 'pass';
    }).start();
    const first = await runBackfill({
      kind: 'orders',
      file,
      url: proxy.url,
      key: KEY,
      concurrency: 2,
      dryRun: false,
      maxRows: 1000,
      maxBytes: 32 * 1024 * 1024,
      retries: 3,
      retryBaseMs: 10,
      timeoutMs: 10_000,
      signal: ac.signal,
      stderr: () => {},
      stderrIsTTY: false,
    });
    await proxy.close();
    expect(first).toMatchObject({
      status: 'interrupted',
      exit_code: 1,
      checkpoint: `${file}.holdfast-progress.json`,
    });
    expect(first.message).toBe(
      'interrupted; re-run the same command to resume: acknowledged rows are skipped',
    );
    expect(sink.receptions.size).toBeLessThan(20_000);
    const sentBefore = sink.receptions.size;

    const second = await runCaptured(
      ['backfill', 'orders', file, '--url', sink.url, '--key', KEY, '--json'],
      {},
    );
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain(
      `backfill: resuming from ${file}.holdfast-progress.json (${sentBefore} rows already done)\n`,
    );
    expect(second.json<BackfillSummary>()).toMatchObject({
      rows_skipped: sentBefore,
      rows_sent: 20_000 - sentBefore,
    });
    expect(sink.receptions.size).toBe(20_000);
    expect(Math.max(...sink.receptions.values())).toBe(1);
    expect(existsSync(`${file}.holdfast-progress.json`)).toBe(false);
  });

  it('refuses a checkpoint written for another file or key', async () => {
    sink = await new FakeIngest({ key: KEY }).start();
    const file = join(dir, 'other.ndjson');
    writeFileSync(file, `${Array.from({ length: 10 }, (_, i) => order(i + 1)).join('\n')}\n`);
    const state = `${file}.holdfast-progress.json`;
    const refused = new FaultProxy(sink.url, (n) => (n === 2 ? 'refuse' : 'pass'));
    await refused.start();
    const args = ['backfill', 'orders', file, '--key', KEY, '--batch-rows', '5', '--concurrency', '1'];
    expect((await runCaptured([...args, '--url', refused.url], {})).code).toBe(2);
    await refused.close();
    expect(existsSync(state)).toBe(true);
    const otherKey = ['backfill', 'orders', file, '--key', `${KEY}x`, '--url', sink.url];
    const elsewhere = await runCaptured(otherKey, {});
    expect([elsewhere.code, elsewhere.stderr]).toEqual([
      2,
      `holdfast: ${state} records progress of another key (another account?); delete it to start over, or pass --state with another path\n`,
    ]);
    const saved = JSON.parse(readFileSync(state, 'utf8')) as Record<string, unknown>;
    writeFileSync(state, JSON.stringify({ ...saved, fingerprint: 'x' }));
    const edited = await runCaptured([...args, '--url', sink.url], {});
    expect(edited.stderr).toBe(
      `holdfast: ${state} records progress of another file; delete it to start over, or pass --state with another path\n`,
    );
    expect(JSON.stringify(saved)).not.toContain(KEY);
  });
});
