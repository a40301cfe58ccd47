import { rawQuery, type Pool, type PoolClient } from '@holdfast/postgres';
import { recomputeDb } from '../recompute-database.js';

/** Counters of one campaign step (analytics.campaign_runs). */
export interface RunCounts {
  planned: number;
  heldOut: number;
  sent: number;
  sendFailed: number;
  /** Sends maybe handed over but never confirmed (`possibly_sent`; docs/campaigns.md, "At most once"). */
  possiblySent: number;
  sandboxSimulated: number;
  capped: number;
  noConsent: number;
  suppressed: number;
  disabled: number;
  eventsAppended: number;
  attributions: number;
  liftReports: number;
}

export const zeroCounts = (): RunCounts => ({
  planned: 0,
  heldOut: 0,
  sent: 0,
  sendFailed: 0,
  possiblySent: 0,
  sandboxSimulated: 0,
  capped: 0,
  noConsent: 0,
  suppressed: 0,
  disabled: 0,
  eventsAppended: 0,
  attributions: 0,
  liftReports: 0,
});

/**
 * Takes the account's campaign lock for the whole step on a dedicated connection (a session advisory
 * lock: released on unlock, or by PostgreSQL when the connection dies with its process). Null when
 * another step of the account holds it (a sync and the nightly run at once).
 */
export async function tryLockAccount(
  pool: Pool,
  accountId: string,
): Promise<{ release(): Promise<void> } | null> {
  const client: PoolClient = await pool.connect();
  try {
    const { rows } = await rawQuery<{ ok: boolean }>(
      client,
      'campaign-runs.try-lock-account',
      `select pg_try_advisory_lock(hashtextextended('holdfast:campaigns:' || $1, 0)) as ok`,
      [accountId],
    );
    if (!rows[0]?.ok) {
      client.release();
      return null;
    }
  } catch (err) {
    client.release();
    throw err;
  }
  return {
    release: async () => {
      try {
        await rawQuery(
          client,
          'campaign-runs.unlock-account',
          `select pg_advisory_unlock(hashtextextended('holdfast:campaigns:' || $1, 0))`,
          [accountId],
        );
        client.release();
      } catch (err) {
        client.release(err as Error);
      }
    },
  };
}

export async function startRun(
  pool: Pool,
  r: { runId: string; accountId: string; taskId: string | null; sendsEnabled: boolean; at: Date },
): Promise<void> {
  await recomputeDb(pool)
    .insertInto('analytics.campaign_runs')
    .values({
      run_id: r.runId,
      account_id: r.accountId,
      task_id: r.taskId,
      status: 'running',
      started_at: r.at,
      sends_enabled: r.sendsEnabled,
    })
    .execute();
}

export async function finishRun(
  pool: Pool,
  runId: string,
  f: { status: 'done' | 'failed' | 'skipped'; reason: string | null; counts: RunCounts; at: Date },
): Promise<void> {
  const c = f.counts;
  await recomputeDb(pool)
    .updateTable('analytics.campaign_runs')
    .set({
      status: f.status,
      reason: f.reason,
      finished_at: f.at,
      planned: c.planned,
      held_out: c.heldOut,
      sent: c.sent,
      send_failed: c.sendFailed,
      possibly_sent: c.possiblySent,
      events_appended: c.eventsAppended,
      attributions: c.attributions,
      lift_reports: c.liftReports,
      sandbox_simulated: c.sandboxSimulated,
      capped: c.capped,
      no_consent: c.noConsent,
      suppressed: c.suppressed,
      disabled: c.disabled,
    })
    .where('run_id', '=', runId)
    .execute();
}
