import { randomUUID } from 'node:crypto';
import { withTransaction, type Pool } from '@holdfast/db';
import type { SyncStatus } from '@holdfast/db';

/** A sync task as GET /ingest/sync/{task_id} reads it. */
export interface SyncTaskRow {
  readonly id: string;
  readonly status: SyncStatus;
  readonly queued_at: Date;
  readonly orders_added: number | null;
  readonly customers_added: number | null;
  readonly duration_ms: number | null;
  readonly reason: string | null;
}

/** Either the queued task, or how long until the account may queue again. */
export type QueueOutcome =
  | { readonly queued: true; readonly taskId: string }
  | { readonly queued: false; readonly retryAfterSeconds: number };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** control.sync_tasks, as the gateway uses it. */
export class SyncTasks {
  constructor(private readonly pool: Pool) {}

  /**
   * Queues an API-triggered task unless the account queued one less than `intervalMs` ago. The check
   * and the insert run under a per-account advisory lock in one transaction, so two gateway processes
   * cannot both queue. Why not a fixed window in rate_counters: "one per 10 minutes" is measured from
   * the previous sync, and its time is already in this table.
   */
  async queue(accountId: string, now: Date, intervalMs: number): Promise<QueueOutcome> {
    return withTransaction(this.pool, async (client): Promise<QueueOutcome> => {
      await client.query(`select pg_advisory_xact_lock(hashtextextended('holdfast:sync:' || $1, 0))`, [
        accountId,
      ]);
      const { rows } = await client.query<{ queued_at: Date }>(
        `select max(queued_at) as queued_at from control.sync_tasks where account_id = $1 and trigger = 'api'`,
        [accountId],
      );
      const last = rows[0]?.queued_at;
      if (last) {
        const waitMs = last.getTime() + intervalMs - now.getTime();
        if (waitMs > 0) return { queued: false, retryAfterSeconds: Math.ceil(waitMs / 1000) };
      }
      const taskId = randomUUID();
      await client.query(
        `insert into control.sync_tasks (id, account_id, trigger, status, queued_at) values ($1, $2, 'api', 'queued', $3)`,
        [taskId, accountId, now],
      );
      return { queued: true, taskId };
    });
  }

  /** Removes a task whose SyncRequested could not be appended (it was never queued). */
  async forget(taskId: string): Promise<void> {
    await this.pool.query(`delete from control.sync_tasks where id = $1 and status = 'queued'`, [taskId]);
  }

  /** The task if it exists AND belongs to the account; a non-UUID id is simply not found. */
  async find(accountId: string, taskId: string): Promise<SyncTaskRow | null> {
    if (!UUID.test(taskId)) return null;
    const { rows } = await this.pool.query<SyncTaskRow>(
      `select id, status, queued_at, orders_added, customers_added, duration_ms, reason
         from control.sync_tasks where id = $1 and account_id = $2`,
      [taskId, accountId],
    );
    return rows[0] ?? null;
  }
}
