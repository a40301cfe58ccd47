// The gauges the alerting rules watch that are read from PostgreSQL at scrape time: sync task ages
// (recompute) and dead letters waiting (projector), on a private database of the real stack.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '@holdfast/control-plane';
import { createMetricsRegistry } from '@holdfast/platform';
import { ensureReadModelSchema } from '@holdfast/read-models';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import { ProjectorMetrics } from '../packages/projections/src/runtime/metrics.js';
import { watchSyncTasks } from '../services/recompute/src/metrics.js';

let t: TestEnv;
beforeAll(async () => {
  t = await createTestEnv('ops-metrics');
  await ensureReadModelSchema(t.pool, 'opsm');
});
afterAll(() => t.close());

const NOW = new Date('2026-11-27T12:00:00.000Z');
const ago = (s: number) => new Date(NOW.getTime() - s * 1000);

function gauge(text: string, name: string, labels = ''): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(labels));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('sync task gauges', () => {
  it('given tasks queued, running and failed, when scraped, then the oldest ages and the failures of the last hour show', async () => {
    const registry = createMetricsRegistry('ops-metrics-recompute');
    watchSyncTasks(registry, t.pool, () => NOW);
    const empty = await registry.metrics();
    expect(gauge(empty, 'holdfast_sync_task_oldest_age_seconds', 'status="queued"')).toBe(0);
    expect(gauge(empty, 'holdfast_sync_tasks_failed_last_hour')).toBe(0);

    const { id: account } = await createAccount(t.db, { name: 'ops metrics' });
    const task = (status: string, queuedS: number, startedS: number | null, finishedS: number | null) =>
      t.pool.query(
        `insert into control.sync_tasks (id, account_id, trigger, status, queued_at, started_at, finished_at)
         values ($1, $2, 'api', $3, $4, $5, $6)`,
        [
          randomUUID(),
          account,
          status,
          ago(queuedS),
          startedS === null ? null : ago(startedS),
          finishedS === null ? null : ago(finishedS),
        ],
      );
    await task('queued', 900, null, null);
    await task('queued', 60, null, null);
    await task('running', 5000, 300, null);
    await task('failed', 4000, 3990, 1800);
    await task('failed', 9000, 8990, 7200); // more than an hour ago
    await task('done', 99_999, 99_990, 99_000);
    await new Promise((r) => setTimeout(r, 150)); // past the one-scrape memo
    const text = await registry.metrics();
    expect(gauge(text, 'holdfast_sync_task_oldest_age_seconds', 'status="queued"')).toBe(900);
    expect(gauge(text, 'holdfast_sync_task_oldest_age_seconds', 'status="running"')).toBe(300);
    expect(gauge(text, 'holdfast_sync_tasks_failed_last_hour')).toBe(1);
  });
});

describe('dead letter gauge', () => {
  it('given dead and re-driven letters, when scraped, then only those not re-driven count, per projection', async () => {
    const registry = createMetricsRegistry('ops-metrics-projector');
    new ProjectorMetrics(registry).watchDeadLetters(registry, t.pool, 'opsm');
    const letter = (projection: string, offset: number, status: string) =>
      t.pool.query(
        `insert into opsm.dead_letters (projection, topic, partition, record_offset, reason, status)
         values ($1, 'holdfast.commerce', 0, $2, 'test', $3)`,
        [projection, offset, status],
      );
    await letter('commerce', 1, 'dead');
    await letter('commerce', 2, 'dead');
    await letter('commerce', 3, 'redriven');
    await letter('pixel', 4, 'dead');
    const text = await registry.metrics();
    expect(gauge(text, 'holdfast_dead_letters', 'projection="commerce"')).toBe(2);
    expect(gauge(text, 'holdfast_dead_letters', 'projection="pixel"')).toBe(1);
  });
});
