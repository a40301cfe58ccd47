import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, mintApiKey } from '@holdfast/control-plane';
import { sql } from '@holdfast/postgres';
import { createTestEnv, REPO_ROOT, spawnTs, type TestEnv } from '@holdfast/testing';
import { runCaptured } from '../testing/capture.js';
import { FaultProxy, type Fault } from '../testing/fault-proxy.js';
import type { BackfillSummary } from './summary.js';

// The second test of the backfill: the real gateway and projector as processes, faults in between,
// and exactly-once checked where it matters, in the projector's read model.
const GATEWAY = join(REPO_ROOT, 'services/gateway/src/main.ts');
const PROJECTOR = join(REPO_ROOT, 'services/projector/src/main.ts');
const ready = existsSync(GATEWAY) && existsSync(PROJECTOR);

let t: TestEnv;
let dir: string;
const children: ChildProcess[] = [];
let gatewayUrl = '';

function waitForLine(child: ChildProcess, pattern: RegExp, ms: number): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`no ${String(pattern)} within ${ms}ms:\n${seen}`)), ms);
    const onData = (d: Buffer) => {
      seen += d.toString();
      const m = pattern.exec(seen);
      if (m) {
        clearTimeout(timer);
        resolve(m);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (d: Buffer) => (seen += d.toString()));
    child.once('exit', (code) => reject(new Error(`exited with ${code}:\n${seen}`)));
  });
}

beforeAll(async () => {
  if (!ready) return;
  t = await createTestEnv('cli-real-gateway');
  dir = await mkdtemp(join(tmpdir(), 'holdfast-real-gw-'));
  const env = { ...t.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn' };
  const gateway = spawnTs(GATEWAY, env);
  children.push(gateway);
  gatewayUrl = `http://127.0.0.1:${(await waitForLine(gateway, /gateway listening on http:\/\/[\d.]+:(\d+)/, 60_000))[1]}`;
  children.push(spawnTs(PROJECTOR, env));
});

afterAll(async () => {
  for (const c of children) {
    if (c.exitCode !== null) continue;
    const exited = new Promise((r) => c.once('exit', r));
    c.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
    c.kill('SIGKILL');
  }
  if (dir) await rm(dir, { recursive: true, force: true });
  await t?.close();
});

async function projectedOrders(accountId: string, want: number): Promise<{ n: number; distinct: number }> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    // The projector process creates the read models at its start, which may end after the backfill.
    const { rows } = await sql<{ n: number; distinct: number }>`
      select count(*)::int as n, count(distinct order_id)::int as distinct
        from read_models.orders where account_id = ${accountId}`
      .execute(t.db)
      .catch((err: { code?: string }) => {
        if (err.code === '42P01' && Date.now() < deadline) return { rows: [{ n: -1, distinct: -1 }] };
        throw err;
      });
    if (rows[0]!.n >= want || Date.now() > deadline) return rows[0]!;
    await new Promise((r) => setTimeout(r, 500));
  }
}

const FAULTS: Record<number, Fault> = {
  2: 'rate-limit',
  3: 'too-large-plain',
  4: 'drop-after',
  6: 'too-large-json',
  8: 'drop-before',
  9: 'server-error',
};

describe.skipIf(!ready)('holdfast backfill against the real gateway', () => {
  it('lands 20,000 orders exactly once in the read model through injected faults', async () => {
    const { id: account } = await createAccount(t.db, { name: 'real gateway' });
    const { key } = await mintApiKey(t.db, account, 'ingest_live');
    const file = join(dir, 'orders.csv');
    const rows = ['order_id,customer_id,order_date,order_amount,product_name,email,discount_codes'];
    for (let i = 1; i <= 20_000; i++)
      rows.push(
        `g-${i},c-${i % 1000},2025-05-0${(i % 9) + 1}T08:00:00Z,${(i % 300) + 1}.25,Tea,c${i % 1000}@example.com,${i % 4 ? '' : 'A;B'}`,
      );
    writeFileSync(file, `${rows.join('\n')}\n`);
    const proxy = await new FaultProxy(gatewayUrl, (n) => FAULTS[n] ?? 'pass').start();
    try {
      const r = await runCaptured(
        [
          'backfill',
          'orders',
          file,
          '--url',
          proxy.url,
          '--key',
          key,
          '--json',
          '--batch-rows',
          '2500',
          '--retry-base-ms',
          '50',
        ],
        {},
      );
      expect(r.code, r.stderr).toBe(0);
      expect(r.json<BackfillSummary>()).toMatchObject({
        status: 'completed',
        accepted: 20_000,
        dropped: 0,
        rate_limited: 1,
        splits_by_bytes: 1,
        splits_by_rows: 1,
        network_errors: 2,
        server_errors: 1,
      });
    } finally {
      await proxy.close();
    }
    expect(await projectedOrders(account, 20_000)).toEqual({ n: 20_000, distinct: 20_000 });
    const { rows: sample } = await sql<{ order_amount: number; product_name: string }>`
      select order_amount, product_name from read_models.orders where account_id = ${account} and order_id = 'g-8'`.execute(
      t.db,
    );
    expect(sample).toEqual([{ order_amount: 9.25, product_name: 'Tea' }]);
  });

  it('maps the real dry run and 422 answers to file lines', async () => {
    const { id: account } = await createAccount(t.db, { name: 'real gateway dry run' });
    const { key } = await mintApiKey(t.db, account, 'ingest_live');
    const good = (i: number) => ({
      order_id: `d-${i}`,
      customer_id: 'c',
      order_date: '2025-01-01T00:00:00Z',
      order_amount: 5,
      product_name: 'Tea',
    });
    const lines = [
      good(1),
      { ...good(2), order_date: 'yesterday' },
      good(3),
      { ...good(4), product_name: undefined },
      good(5),
    ];
    const file = join(dir, 'dry.ndjson');
    writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
    const r = await runCaptured(
      ['backfill', 'orders', file, '--url', gatewayUrl, '--key', key, '--dry-run', '--json'],
      {},
    );
    expect(r.code).toBe(2);
    const s = r.json<BackfillSummary>();
    expect(s).toMatchObject({ dry_run: true, row_errors: 2 });
    const report = readFileSync(s.error_report, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { line: number; codes: string[] });
    expect(report.map((e) => e.line).sort()).toEqual([2, 4]);
    expect(report.find((e) => e.line === 2)!.codes).toEqual(['unparseable_order_date_or_amount']);
    expect(report.find((e) => e.line === 4)!.codes.join()).toContain('product_name');
    expect(await projectedOrders(account, 0)).toEqual({ n: 0, distinct: 0 });
  });
});
