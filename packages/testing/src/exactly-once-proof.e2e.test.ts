import { randomUUID } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { createWriteStream, rmSync, type WriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TransactionalAppender, topicName } from '@holdfast/kafka';
import type { SyncRequested } from '@holdfast/contracts';
import { createTestEnv, type TestEnv } from './test-env.js';
import { spawnTs } from './run-ts.js';

const N = 20_000;
/**
 * Rows one killed life of the consumer may commit before it holds (PROOF_MAX_ROWS): three lives
 * apply at most 3 × (2,500 + one chunk), so every restart, and the last consumer, has work left.
 */
const ROWS_PER_LIFE = N / 8;
let t: TestEnv;
let appender: TransactionalAppender;
const children: ChildProcess[] = [];
/** The consumers' output (joins, batches, holds, errors): kept when the test fails, removed otherwise. */
let logPath: string;
let log: WriteStream;

function syncRequested(accountId: string): SyncRequested {
  return {
    metadata: {
      account_id: accountId,
      event_id: randomUUID(),
      batch_id: null,
      request_id: null,
      key_id: null,
      received_at: new Date().toISOString(),
    },
    task_id: randomUUID(),
    trigger: 'api',
    barrier: null,
  };
}

async function count(): Promise<{ rows: number; distinct: number }> {
  const { rows } = await t.pool.query<{ rows: number; distinct: number }>(
    `select count(*)::int as rows, count(distinct task_id)::int as distinct from proof_applied`,
  );
  return rows[0]!;
}

async function until<T>(what: string, fn: () => Promise<T>, ok: (v: T) => boolean, ms = 120_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn().catch(() => undefined);
    if (v !== undefined && ok(v)) return v;
    if (Date.now() > deadline)
      throw new Error(
        `timed out waiting for ${what} (last seen ${JSON.stringify(v)}; consumers' log ${logPath})`,
      );
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Starts the consumer; `maxRows` bounds what this life applies before it holds (see the fixture). */
function startConsumer(maxRows?: number): ChildProcess {
  const n = children.length;
  const child = spawnTs('packages/testing/src/fixtures/proof-consumer.ts', {
    ...t.env,
    LOG_LEVEL: 'info',
    ...(maxRows === undefined ? {} : { PROOF_MAX_ROWS: String(maxRows) }),
  });
  log.write(`${new Date().toISOString()} consumer ${n} started (pid ${child.pid})\n`);
  // Read, not left in the pipe: a child whose pipe fills blocks on its next log line.
  child.stdout!.on('data', (d: Buffer) => log.write(d));
  child.stderr!.on('data', (d: Buffer) => log.write(d));
  children.push(child);
  return child;
}

beforeAll(async () => {
  t = await createTestEnv('proof');
  logPath = join(tmpdir(), `${t.name}-consumers.log`);
  log = createWriteStream(logPath);
  appender = await TransactionalAppender.create(t.kafka, { name: `${t.topicPrefix}proof`, size: 2 });
});

afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  await appender?.close();
  await t?.close();
  log?.end();
});

describe('the event log folded into PostgreSQL', () => {
  it('applies every record of committed transactions exactly once, across SIGKILLs, and nothing of an aborted one', async () => {
    const topic = topicName(t.topicPrefix, 'holdfast.sync-commands');
    const accounts = [randomUUID(), randomUUID(), randomUUID()];
    const expected = new Set<string>();
    // 4 committed transactions of N/4 records each, through the registry's wire format.
    for (let b = 0; b < 4; b++) {
      const records = Array.from({ length: N / 4 }, (_, i) => {
        const value = syncRequested(accounts[i % accounts.length]!);
        expected.add(value.task_id);
        return { topic, key: value.metadata.account_id, value: t.codec.encode('SyncRequested', value) };
      });
      await appender.append(records);
    }
    // An aborted transaction: the producer fails mid-way (a record too large for the broker).
    const aborted = syncRequested(accounts[0]!);
    await expect(
      appender.append([
        { topic, key: aborted.metadata.account_id, value: t.codec.encode('SyncRequested', aborted) },
        { topic, key: 'x', value: Buffer.alloc(40 * 1024 * 1024) },
      ]),
    ).rejects.toThrow();

    // Kill the consumer with SIGKILL three times while it folds, then let it finish. A life killed as
    // soon as it applied something may have applied thousands of rows meanwhile; bounded, it cannot
    // have applied all that is left, so every restart has something to apply.
    for (let k = 0; k < 3; k++) {
      const before = (await count().catch(() => ({ rows: 0, distinct: 0 }))).rows;
      expect(before).toBeLessThan(N);
      const child = startConsumer(ROWS_PER_LIFE);
      await until('progress', count, (c) => c.rows > before, 90_000);
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
    }
    const last = startConsumer();
    const final = await until('all records', count, (c) => c.rows >= N);
    // Give a duplicate the chance to appear before asserting none did.
    await new Promise((r) => setTimeout(r, 1500));
    const settled = await count();
    expect(settled).toEqual({ rows: N, distinct: N });
    expect(final.rows).toBe(N);
    const { rows } = await t.pool.query<{ task_id: string }>(`select task_id from proof_applied`);
    expect(new Set(rows.map((r) => r.task_id))).toEqual(expected);
    expect(rows.some((r) => r.task_id === aborted.task_id)).toBe(false);
    last.kill('SIGTERM');
    rmSync(logPath, { force: true });
  });
});
