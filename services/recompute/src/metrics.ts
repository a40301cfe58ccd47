import { rawQuery, type Pool } from '@holdfast/postgres';
import { Gauge, type Registry } from '@holdfast/platform';

interface SyncTaskAges {
  readonly queued: number;
  readonly running: number;
  readonly failedLastHour: number;
}

/**
 * Adds the sync tasks' health, read from `control.sync_tasks` at scrape time (one query serves the
 * gauges of one scrape): `holdfast_sync_task_oldest_age_seconds{status}` (the oldest `queued` task's
 * age since it was queued, the oldest `running` one's since it started; 0 when none) and
 * `holdfast_sync_tasks_failed_last_hour`. A scrape while PostgreSQL is away leaves them out.
 */
export function watchSyncTasks(registry: Registry, pool: Pool, now: () => Date = () => new Date()): void {
  let pending: Promise<SyncTaskAges | undefined> | undefined;
  const read = () =>
    (pending ??= rawQuery<{ queued: Date | null; running: Date | null; failed: number }>(
      pool,
      'metrics.sync-task-ages',
      `select min(queued_at) filter (where status = 'queued') as queued,
              min(started_at) filter (where status = 'running') as running,
              count(*) filter (where status = 'failed' and finished_at > $1::timestamptz - interval '1 hour')::int as failed
         from control.sync_tasks where status in ('queued', 'running', 'failed')`,
      [now()],
    )
      .then(({ rows: [r] }) => {
        const age = (d: Date | null | undefined) =>
          d ? Math.max(0, (now().getTime() - d.getTime()) / 1000) : 0;
        return { queued: age(r?.queued), running: age(r?.running), failedLastHour: r?.failed ?? 0 };
      })
      .catch(() => undefined)
      .finally(() => setTimeout(() => (pending = undefined), 100).unref()));
  new Gauge({
    name: 'holdfast_sync_task_oldest_age_seconds',
    help: 'Age of the oldest queued sync task (since queued) and of the oldest running one (since started); 0 when none.',
    labelNames: ['status'],
    registers: [registry],
    async collect() {
      const a = await read();
      this.reset();
      if (!a) return;
      this.set({ status: 'queued' }, a.queued);
      this.set({ status: 'running' }, a.running);
    },
  });
  new Gauge({
    name: 'holdfast_sync_tasks_failed_last_hour',
    help: 'Sync tasks that ended failed in the last hour.',
    registers: [registry],
    async collect() {
      const a = await read();
      if (a) this.set(a.failedLastHour);
      else this.reset();
    },
  });
}
