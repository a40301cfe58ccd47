import { rawQuery, type Pool } from '@holdfast/postgres';
import type { SecretsKeyring } from '@holdfast/secrets';
import { describeFailure, isRetriable, type Logger } from '@holdfast/platform';
import type { SubjectKeyStore } from '@holdfast/privacy';
import { runExport } from './build-export.js';
import { passVerdict, type WorkerHealth } from './worker-health.js';
import { scrubPersonalText } from '@holdfast/domain';
import { decideAttempt } from './request-status.js';
import { runErasure } from './run-erasure.js';

/** How the privacy request worker runs. */
export interface PrivacyWorkerOptions {
  readonly pool: Pool;
  /** The live read-model schema. */
  readonly schema: string;
  readonly keys: Pick<SubjectKeyStore, 'indexKey' | 'destroy'>;
  readonly keyring: SecretsKeyring;
  readonly logger: Logger;
  /** How often it looks for queued requests (and purges expired exports). */
  readonly intervalMs: number;
  /** Attempts per request before it fails (retriable failures and dead workers). */
  readonly maxAttempts?: number;
  /** A request `running` longer than this without finishing is taken again (its worker died). */
  readonly leaseMs?: number;
  readonly now?: () => Date;
}

/** A running worker: `runOnce` for tests and the CLI's --wait, `stop` on shutdown. */
export interface PrivacyWorker {
  /** Runs every queued request once now, then purges expired exports; returns how many it took. */
  runOnce(): Promise<number>;
  stop(): void;
}

interface ClaimedRow {
  id: string;
  account_id: string;
  external_id_index: string | null;
  email_index: string | null;
  phone_index: string | null;
  suppress?: boolean;
  anonymous_id_index?: string | null;
  attempts: number;
  reason: string | null;
}

type Table = 'erasure_requests' | 'person_exports';

/**
 * Claims the oldest queued request of `table` (or one whose worker's lease ran out): running,
 * attempts + 1. `FOR UPDATE SKIP LOCKED`, so several projector processes share the queue.
 */
async function claim(
  pool: Pool,
  table: Table,
  now: Date,
  leaseMs: number,
  skip: readonly string[],
): Promise<ClaimedRow | null> {
  const extra = table === 'erasure_requests' ? ', r.suppress, r.anonymous_id_index' : '';
  const { rows } = await rawQuery<ClaimedRow>(
    pool,
    `privacy-worker.claim-${table === 'erasure_requests' ? 'erasure' : 'export'}`,
    `update privacy.${table} r set status = 'running', attempts = r.attempts + 1,
            started_at = coalesce(r.started_at, $1)
      where r.id = (select id from privacy.${table}
                     where (status = 'queued' or (status = 'running' and started_at < $2))
                       and not (id = any($3::uuid[]))
                     order by requested_at for update skip locked limit 1)
      returning r.id, r.account_id, r.external_id_index, r.email_index, r.phone_index, r.attempts, r.reason${extra}`,
    [now, new Date(now.getTime() - leaseMs), skip],
  );
  return rows[0] ?? null;
}

async function settle(
  pool: Pool,
  table: Table,
  id: string,
  status: 'queued' | 'failed',
  reason: string,
  now: Date,
) {
  await rawQuery(
    pool,
    `privacy-worker.settle-${table === 'erasure_requests' ? 'erasure' : 'export'}`,
    `update privacy.${table} set status = $2, reason = $3,
            finished_at = case when $2 = 'failed' then $4::timestamptz else null end,
            started_at = case when $2 = 'queued' then null else started_at end
      where id = $1`,
    // The reason is shown by the API and logged: no personal value in it, whatever an error said.
    [id, status, scrubPersonalText(reason), now],
  );
}

/**
 * The worker of erasure and access requests, in the projector process (it owns the read models an
 * erasure blanks, and holds the KEK an export's document is sealed with). Every `intervalMs` it runs
 * the queued erasures first (oldest first), then the exports, then deletes expired exports. A request
 * that fails retriably (`isRetriable`: a connection lost, a serialization failure) goes back to
 * `queued` and is tried again at the next pass (not the same one), up to `maxAttempts` (3) attempts; a permanent failure,
 * or the last attempt, ends it `failed` with the reason. One pass at a time per process.
 *
 * @example
 * const worker = startPrivacyWorker({ pool, schema, keys, keyring, logger, intervalMs: 2000 });
 * // on shutdown
 * worker.stop();
 */
export function startPrivacyWorker(o: PrivacyWorkerOptions): PrivacyWorker {
  const now = o.now ?? (() => new Date());
  const maxAttempts = o.maxAttempts ?? 3;
  const leaseMs = o.leaseMs ?? 10 * 60_000;

  /** `tried`: the requests this pass already took; one put back to queued waits for the next pass. */
  const runOne = async (table: Table, tried: string[]): Promise<boolean> => {
    const row = await claim(o.pool, table, now(), leaseMs, tried);
    if (!row) return false;
    tried.push(row.id);
    const kind = table === 'erasure_requests' ? 'erasure' : 'export';
    const decision = decideAttempt(row.attempts, maxAttempts, row.reason);
    if (decision.kind === 'fail') {
      await settle(o.pool, table, row.id, 'failed', decision.reason, now());
      o.logger.error(`${kind}_failed`, {
        id: row.id,
        account_id: row.account_id,
        reason: scrubPersonalText(decision.reason),
      });
      return true;
    }
    const started = performance.now();
    const target = {
      id: row.id,
      accountId: row.account_id,
      externalId: row.external_id_index,
      email: row.email_index,
      phone: row.phone_index,
    };
    try {
      if (table === 'erasure_requests') {
        const counters = await runErasure(
          o,
          { ...target, anonymousId: row.anonymous_id_index ?? null, suppress: row.suppress === true },
          now,
        );
        o.logger.info('erasure_done', {
          id: row.id,
          account_id: row.account_id,
          ...counters,
          duration_ms: Math.round(performance.now() - started),
        });
      } else {
        const customers = await runExport(o, target, now);
        o.logger.info('export_done', {
          id: row.id,
          account_id: row.account_id,
          customers,
          duration_ms: Math.round(performance.now() - started),
        });
      }
    } catch (err) {
      const reason = (err as Error).message ?? String(err);
      const retry = isRetriable(err) && row.attempts < maxAttempts;
      await settle(o.pool, table, row.id, retry ? 'queued' : 'failed', reason, now());
      o.logger.warn(`${kind}_attempt_failed`, {
        id: row.id,
        attempt: row.attempts,
        retry,
        ...describeFailure(err),
      });
    }
    return true;
  };

  let health: WorkerHealth = 'ok';
  /** One line per change of health (passVerdict): a missing schema is said once, not every interval. */
  const noteOutcome = (err: unknown) => {
    const v = passVerdict(health, err);
    health = v.health;
    if (v.log === 'awaiting_migrations')
      o.logger.warn('privacy_worker_awaiting_migrations', {
        ...describeFailure(err),
        hint: 'schema privacy is missing: run `holdfast migrate`; erasures and exports wait until then',
      });
    else if (v.log === 'pass_failed') o.logger.warn('privacy_worker_pass_failed', describeFailure(err));
    else if (v.log) o.logger.info(`privacy_worker_${v.log}`);
  };

  const pass = async (): Promise<number> => {
    let ended = 0;
    try {
      const tried: string[] = [];
      while (await runOne('erasure_requests', tried)) ended++;
      while (await runOne('person_exports', tried)) ended++;
      const { rowCount } = await rawQuery(
        o.pool,
        'privacy-worker.purge-exports',
        'delete from privacy.person_exports where expires_at <= $1',
        [now()],
      );
      if (rowCount) o.logger.info('exports_purged', { rows: rowCount });
      noteOutcome(undefined);
    } catch (err) {
      noteOutcome(err);
    }
    return ended;
  };
  let running: Promise<number> | undefined;
  const runOnce = () => (running ??= pass().finally(() => (running = undefined)));
  const timer = setInterval(() => void runOnce(), o.intervalMs);
  timer.unref();
  void runOnce();
  return { runOnce, stop: () => clearInterval(timer) };
}
