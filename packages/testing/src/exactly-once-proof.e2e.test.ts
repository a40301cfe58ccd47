import { randomUUID } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TransactionalAppender, topicName } from '@holdfast/kafka';
import type { SyncRequested } from '@holdfast/contracts';
import { createTestEnv, type TestEnv } from './test-env.js';
import { spawnTs } from './run-ts.js';

const N = 20_000;
let t: TestEnv;
let appender: TransactionalAppender;
const children: ChildProcess[] = [];

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
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function startConsumer(): ChildProcess {
  const child = spawnTs('packages/testing/src/fixtures/proof-consumer.ts', t.env);
  children.push(child);
  return child;
}

beforeAll(async () => {
  t = await createTestEnv('proof');
  appender = await TransactionalAppender.create(t.kafka, { name: `${t.topicPrefix}proof`, size: 2 });
});

afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  await appender?.close();
  await t?.close();
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

    // Kill the consumer with SIGKILL three times while it folds, then let it finish.
    for (let k = 0; k < 3; k++) {
      const before = (await count().catch(() => ({ rows: 0, distinct: 0 }))).rows;
      const child = startConsumer();
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
  });
});
