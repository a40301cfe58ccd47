import type { Pool, PoolClient } from '@holdfast/db';

/** Counters of one campaign step (analytics.campaign_runs). */
export interface RunCounts {
  planned: number;
  heldOut: number;
  sent: number;
  sendFailed: number;
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
    const { rows } = await client.query<{ ok: boolean }>(
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
        await client.query(`select pg_advisory_unlock(hashtextextended('holdfast:campaigns:' || $1, 0))`, [
          accountId,
        ]);
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
  await pool.query(
    `insert into analytics.campaign_runs (run_id, account_id, task_id, status, started_at, sends_enabled)
     values ($1, $2, $3, 'running', $4, $5)`,
    [r.runId, r.accountId, r.taskId, r.at, r.sendsEnabled],
  );
}

export async function finishRun(
  pool: Pool,
  runId: string,
  f: { status: 'done' | 'failed' | 'skipped'; reason: string | null; counts: RunCounts; at: Date },
): Promise<void> {
  const c = f.counts;
  await pool.query(
    `update analytics.campaign_runs
        set status = $2, reason = $3, finished_at = $4, planned = $5, held_out = $6, sent = $7,
            send_failed = $8, events_appended = $9, attributions = $10, lift_reports = $11,
            sandbox_simulated = $12, capped = $13, no_consent = $14, suppressed = $15, disabled = $16
      where run_id = $1`,
    [
      runId,
      f.status,
      f.reason,
      f.at,
      c.planned,
      c.heldOut,
      c.sent,
      c.sendFailed,
      c.eventsAppended,
      c.attributions,
      c.liftReports,
      c.sandboxSimulated,
      c.capped,
      c.noConsent,
      c.suppressed,
      c.disabled,
    ],
  );
}
