import {
  checkpointTableDdl,
  readCheckpoint,
  writeCheckpoint,
  type CheckpointKey,
  type Pool,
  type PoolClient,
} from '@holdfast/db';

/** Where the sync consumer keeps its checkpoints: beside nothing it owns in read_models. */
export const RECOMPUTE_SCHEMA = 'recompute';

/** The task a SyncRequested command refers to. */
export interface SyncTaskRef {
  readonly taskId: string;
  readonly accountId: string;
  readonly trigger: string;
  /** When the command was issued (its metadata.received_at). */
  readonly requestedAt: Date;
}

/** What claiming a task decided. */
export type Claim =
  | { readonly kind: 'run'; readonly startedAt: Date }
  | { readonly kind: 'seen' }
  | { readonly kind: 'finished' }
  | { readonly kind: 'skipped' };

/** Counters of a done task. */
export interface TaskCounts {
  readonly ordersAdded: number;
  readonly customersAdded: number;
}

async function inTransaction<T>(pool: Pool, fn: (c: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('begin');
    const result = await fn(client);
    await client.query('commit');
    return result;
  } catch (err) {
    await client.query('rollback').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}

const lockAccount = (c: PoolClient, accountId: string) =>
  c.query(`select pg_advisory_xact_lock(hashtextextended('holdfast:sync-run:' || $1, 0))`, [accountId]);

/**
 * The state changes of control.sync_tasks made by the sync consumer. Every change that ends a
 * command's processing (skipped, done, failed) is written in the same transaction as the consumer's
 * checkpoint, so a redelivered command changes nothing twice. `running` is written on its own (it
 * must be visible while the work runs); a crash after it leaves the task running, and the redelivered
 * command resumes it.
 */
export class SyncTaskStore {
  constructor(
    private readonly pool: Pool,
    private readonly readModelSchema: string,
    private readonly staleRunningMs: number,
  ) {}

  async ensureSchema(): Promise<void> {
    // Only when missing: CREATE SCHEMA checks the database privilege even when the schema exists, and
    // the recompute's own role has none (the migration owner creates the schema for it).
    await this.pool.query(
      `do $$ begin if not exists (select from pg_namespace where nspname = '${RECOMPUTE_SCHEMA}') then
         create schema "${RECOMPUTE_SCHEMA}"; end if; end $$`,
    );
    await this.pool.query(checkpointTableDdl(RECOMPUTE_SCHEMA));
  }

  /** Skips a record that is not a command this consumer acts on. */
  async pass(key: CheckpointKey, offset: number): Promise<void> {
    await inTransaction(this.pool, async (c) => {
      if (offset > (await readCheckpoint(c, key))) await writeCheckpoint(c, key, offset);
    });
  }

  /**
   * queued → running, or → skipped `already_running` when another task of the account is running
   * (and was started less than `staleRunningMs` ago: a task whose process died must not block the
   * account forever). A task without a row (a command appended by another producer) gets one.
   */
  async claim(key: CheckpointKey, offset: number, task: SyncTaskRef, now: Date): Promise<Claim> {
    return inTransaction(this.pool, async (c) => {
      if (offset <= (await readCheckpoint(c, key))) return { kind: 'seen' };
      await lockAccount(c, task.accountId);
      await c.query(
        `insert into control.sync_tasks (id, account_id, trigger, status, queued_at)
         values ($1, $2, $3, 'queued', $4) on conflict (id) do nothing`,
        [task.taskId, task.accountId, task.trigger, task.requestedAt],
      );
      const { rows } = await c.query<{ status: string; started_at: Date | null }>(
        `select status, started_at from control.sync_tasks where id = $1 and account_id = $2 for update`,
        [task.taskId, task.accountId],
      );
      const row = rows[0];
      if (!row || ['done', 'failed', 'skipped'].includes(row.status)) {
        await writeCheckpoint(c, key, offset);
        return { kind: 'finished' };
      }
      const other = await c.query(
        `select 1 from control.sync_tasks
          where account_id = $1 and id <> $2 and status = 'running' and started_at > $3 limit 1`,
        [task.accountId, task.taskId, new Date(now.getTime() - this.staleRunningMs)],
      );
      if (other.rowCount) {
        await c.query(
          `update control.sync_tasks set status = 'skipped', reason = 'already_running', finished_at = $2 where id = $1`,
          [task.taskId, now],
        );
        await writeCheckpoint(c, key, offset);
        return { kind: 'skipped' };
      }
      const startedAt = row.started_at ?? now;
      await c.query(`update control.sync_tasks set status = 'running', started_at = $2 where id = $1`, [
        task.taskId,
        startedAt,
      ]);
      return { kind: 'run', startedAt };
    });
  }

  /**
   * running → done. orders_added / customers_added are the growth of the account's projected orders
   * and customers since its previous done task: today's count minus what earlier done tasks already
   * counted. So the counters of an account's done tasks always sum to its totals, and rows the
   * projector had not folded yet when a task ran are counted by the next one, never lost.
   */
  async done(
    key: CheckpointKey,
    offset: number,
    task: SyncTaskRef,
    startedAt: Date,
    now: Date,
  ): Promise<TaskCounts | null> {
    return inTransaction(this.pool, async (c) => {
      // Another consumer may have finished it meanwhile (a rebalance during the work): do nothing twice.
      if (offset <= (await readCheckpoint(c, key))) return null;
      await lockAccount(c, task.accountId);
      const counts = await this.counts(c, task.accountId, task.taskId);
      await c.query(
        `update control.sync_tasks set status = 'done', orders_added = $2, customers_added = $3,
                finished_at = $4, duration_ms = $5, reason = null
          where id = $1`,
        [
          task.taskId,
          counts.ordersAdded,
          counts.customersAdded,
          now,
          Math.max(0, now.getTime() - startedAt.getTime()),
        ],
      );
      await writeCheckpoint(c, key, offset);
      return counts;
    });
  }

  /** running → failed, with the reason. */
  async failed(
    key: CheckpointKey,
    offset: number,
    task: SyncTaskRef,
    reason: string,
    now: Date,
  ): Promise<void> {
    await inTransaction(this.pool, async (c) => {
      if (offset <= (await readCheckpoint(c, key))) return;
      await c.query(
        `update control.sync_tasks set status = 'failed', reason = $2, finished_at = $3 where id = $1`,
        [task.taskId, reason.slice(0, 500), now],
      );
      await writeCheckpoint(c, key, offset);
    });
  }

  private async counts(c: PoolClient, accountId: string, taskId: string): Promise<TaskCounts> {
    const s = `"${this.readModelSchema}"`;
    const { rows: exists } = await c.query<{ ok: boolean }>(
      `select to_regclass($1) is not null and to_regclass($2) is not null as ok`,
      [`${s}.orders`, `${s}.customers`],
    );
    const { rows } = await c.query<{
      orders: number;
      customers: number;
      orders_before: number;
      customers_before: number;
    }>(
      `select ${exists[0]?.ok ? `(select count(*) from ${s}.orders where account_id = $1)` : '0'}::int as orders,
              ${exists[0]?.ok ? `(select count(*) from ${s}.customers where account_id = $1)` : '0'}::int as customers,
              coalesce(sum(orders_added), 0)::int as orders_before,
              coalesce(sum(customers_added), 0)::int as customers_before
         from control.sync_tasks where account_id = $1 and status = 'done' and id <> $2`,
      [accountId, taskId],
    );
    const r = rows[0]!;
    return {
      ordersAdded: Math.max(0, r.orders - r.orders_before),
      customersAdded: Math.max(0, r.customers - r.customers_before),
    };
  }
}
