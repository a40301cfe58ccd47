import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { from as copyFrom } from 'pg-copy-streams';
import { customerChurned, movedIntoLapsed } from '@holdfast/domain';
import {
  inTransaction,
  namedSql,
  rawQuery,
  type Database,
  type Pool,
  type PoolClient,
} from '@holdfast/postgres';
import { recordOutboundEvents } from '@holdfast/webhook-deliveries';
import type { Kysely } from 'kysely';
import { recomputeDbOn } from '../recompute-database.js';
import { checkedAccountId } from './account-id.js';
import type { AccountFit } from '@holdfast/analytics';
import { modelParams, PER_CUSTOMER_COLUMNS } from './score-rows.js';
import type { HoldoutColumns, ModelFitRow } from './model-fit.js';
import type { LifecycleMixTable } from '../migrations/tables.js';
import { countScoreBins, writeScoreBins, type ScoreBinRow } from './score-bins.js';

/** How long the swap waits for readers of customer_scores before it retries (it blocks new ones meanwhile). */
const SWAP_LOCK_TIMEOUT = '5s';
const SWAP_ATTEMPTS = 5;

/**
 * Prefix of an account's partitions of analytics.customer_scores (`cs_<account hex>_<random>`: one
 * per recompute, so a new one never collides with the one it replaces).
 */
function partitionPrefix(accountId: string): string {
  return `cs_${checkedAccountId(accountId).replace(/-/g, '')}_`;
}

/** What every row of one recompute shares, and the lines of its rows. */
export interface ScoreTable {
  readonly accountId: string;
  readonly asOf: Date;
  readonly horizonDays: number;
  /** The fit the rows were scored with (model and model_params of every row). */
  readonly fit: Pick<AccountFit, 'model' | 'params'>;
  /**
   * The recompute's staged summaries (stream-account.ts, one row per customer scored, with x): where
   * `customer.churned` reads each lapsing customer's purchase count. Must exist until the swap is done.
   */
  readonly stage: string;
}

/**
 * Runs `work` holding the account's recompute lock (a session advisory lock: two recomputes of one
 * account, a sync and the nightly run, take turns; the later one replaces the earlier one's rows),
 * after dropping the tables a recompute of the account left when it died before its swap.
 */
export async function withAccountLock<T>(
  pool: Pool,
  accountId: string,
  work: (client: PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  const lockKey = `holdfast:customer_scores:${accountId}`;
  try {
    await rawQuery(client, 'write-scores.lock-account', `select pg_advisory_lock(hashtextextended($1, 0))`, [
      lockKey,
    ]);
    try {
      await dropDetached(client, partitionPrefix(accountId));
      return await work(client);
    } finally {
      await rawQuery(
        client,
        'write-scores.unlock-account',
        `select pg_advisory_unlock(hashtextextended($1, 0))`,
        [lockKey],
      );
    }
  } finally {
    client.release();
  }
}

/** A new table name of the account (`cs_<account hex>_<random>`), never one in use. */
export function newScoreTableName(accountId: string): string {
  return `${partitionPrefix(accountId)}${randomBytes(4).toString('hex')}`;
}

/**
 * Replaces the account's rows of analytics.customer_scores, atomically: builds the new partition
 * `table` from `lines` ({@link PER_CUSTOMER_COLUMNS} in COPY text, streamed as they are made) unless
 * there are no rows, then swaps it in. Call it inside {@link withAccountLock}.
 *
 * customer_scores is partitioned by account. The new rows are loaded with COPY into a fresh table that
 * nobody reads yet, its primary key is built in one pass, and ONE short transaction then swaps it in:
 * detach and drop the account's previous partition, attach the new one, record the fit. A reader sees
 * the previous recompute or the new one, never a mix, and is never slowed by the load itself.
 *
 * Why not `delete` + COPY in one transaction: at a million rows every inserted key finds its own
 * just-deleted version in the primary key and visits it in the heap; measured here that took 30–70 s,
 * the swap about a fifth of it. The price is a brief ACCESS EXCLUSIVE lock on customer_scores during
 * the swap (DETACH PARTITION needs it): it waits at most SWAP_LOCK_TIMEOUT for running readers, then
 * retries. Tables left by a crash are dropped on the next recompute of the account.
 *
 * The DDL, the COPY, the advisory locks and the catalog reads are raw SQL (kysely has no COPY, and the
 * DDL names a table made up here), each named `write-scores.*`; the fit's upsert and the default
 * partition's delete are kysely.
 */
export async function replaceAccountScores(
  client: PoolClient,
  meta: ScoreTable,
  table: string,
  lines: AsyncIterable<string> | Iterable<string> | null,
  fit: ModelFitRow | null,
): Promise<void> {
  const counts = lines ? await buildPartition(client, table, meta, lines) : NO_COUNTS;
  await swap(client, partitionPrefix(meta.accountId), lines ? table : null, meta, fit, counts);
}

/** The longest a streamed statement (a COPY of a whole account) may run, server and client side. */
export const STREAM_TIMEOUT_MS = 2 * 3_600_000;

/**
 * A COPY stream that may outlast the pool's query timeouts: a large account's rows take minutes, not
 * the seconds an ordinary statement gets. Sets the transaction's statement_timeout and the query's
 * client-side timeout (pg reads `query_timeout` off the submitted object) to {@link STREAM_TIMEOUT_MS}.
 */
export async function allowLongStatements(client: PoolClient): Promise<void> {
  await rawQuery(client, 'write-scores.stream-timeout', `set local statement_timeout = ${STREAM_TIMEOUT_MS}`);
}

/** See {@link allowLongStatements}: the same bound on the client side of one COPY. */
export function longQuery<T extends object>(submittable: T): T {
  (submittable as { query_timeout?: number }).query_timeout = STREAM_TIMEOUT_MS + 5_000;
  return submittable;
}

/**
 * Ends the client-side timer of a COPY TO stream read to its end (or given up). pg clears a query's
 * timer through the query's callback, which a pg-copy-streams reader never calls: without this the
 * timer would outlive the stream by up to {@link STREAM_TIMEOUT_MS}, keep a finished process alive
 * and then fail a stream long done.
 */
export function settleCopyOut(stream: object): void {
  (stream as { callback?: (err: null) => void }).callback?.(null);
}

/** Customers per lifecycle state of one recompute (a row of analytics.lifecycle_mix, less its keys). */
interface MixRow {
  readonly lifecycle_state: string;
  readonly customers: number;
}

/** What the dashboards read of one recompute: the lifecycle mix and the score bins. */
interface ScoreCounts {
  readonly mix: readonly MixRow[];
  readonly bins: readonly ScoreBinRow[];
}
const NO_COUNTS: ScoreCounts = { mix: [], bins: [] };

/**
 * Builds the account's new partition aside (COPY, primary key) and counts its customers per lifecycle
 * state and per score bin there (in SQL: nothing per customer is kept here), before the swap, so that
 * the swap's lock is not held for a scan.
 */
async function buildPartition(
  client: PoolClient,
  table: string,
  meta: ScoreTable,
  lines: AsyncIterable<string> | Iterable<string>,
): Promise<ScoreCounts> {
  const t = `analytics."${table}"`;
  const literal = (v: string) => client.escapeLiteral(v);
  return inTransaction(client, async () => {
    await allowLongStatements(client);
    await rawQuery(
      client,
      'write-scores.create-partition',
      `create table ${t} (like analytics.customer_scores including constraints)`,
    );
    // The partition constraint, stated up front: ATTACH then trusts it instead of scanning the table.
    await rawQuery(
      client,
      'write-scores.partition-constraint',
      `alter table ${t} add constraint account_only check (account_id = ${literal(meta.accountId)})`,
    );
    await rawQuery(
      client,
      'write-scores.set-defaults',
      `alter table ${t}
      alter column account_id set default ${literal(meta.accountId)},
      alter column model set default ${literal(meta.fit.model)},
      alter column model_params set default ${literal(JSON.stringify(modelParams(meta.fit)))}::jsonb,
      alter column horizon_days set default ${Number(meta.horizonDays)},
      alter column as_of set default ${literal(meta.asOf.toISOString())}::timestamptz`,
    );
    // FREEZE: the table is new in this transaction, so its rows need no later freezing pass.
    await pipeline(
      Readable.from(lines),
      client.query(
        longQuery(
          copyFrom(
            namedSql(
              'write-scores.copy-scores',
              `copy ${t} (${PER_CUSTOMER_COLUMNS.join(', ')}) from stdin with (freeze)`,
            ),
          ),
        ),
      ),
    );
    await rawQuery(
      client,
      'write-scores.drop-defaults',
      `alter table ${t}
      alter column account_id drop default, alter column model drop default,
      alter column model_params drop default, alter column horizon_days drop default,
      alter column as_of drop default`,
    );
    await rawQuery(
      client,
      'write-scores.primary-key',
      `alter table ${t} add constraint "${table}_pkey" primary key (account_id, customer_id)`,
    );
    const { rows } = await rawQuery<{ lifecycle_state: string; customers: number }>(
      client,
      'write-scores.lifecycle-mix',
      `select lifecycle_state, count(*)::int as customers from ${t} group by 1 order by 1`,
    );
    return { mix: rows, bins: await countScoreBins(client, t) };
  });
}

async function swap(
  client: PoolClient,
  prefix: string,
  table: string | null,
  batch: ScoreTable,
  fit: ModelFitRow | null,
  counts: ScoreCounts,
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await inTransaction(client, async () => {
        await rawQuery(
          client,
          'write-scores.lock-timeout',
          `set local lock_timeout = '${SWAP_LOCK_TIMEOUT}'`,
        );
        // Before the old scores go: who moves into Lapsed with this recompute (customer.churned).
        // Its join of the new partition, the old one and the stage is a minute at 10 M customers: past
        // the pool's 30 s statement timeout, which failed every recompute of such an account after
        // its first. It runs before DETACH, holding only what readers hold (lock_timeout bounds the
        // wait for the exclusive lock separately).
        await allowLongStatements(client);
        if (table) await announceChurned(client, table, batch);
        for (const old of await attachedPartitions(client, prefix)) {
          await rawQuery(
            client,
            'write-scores.detach-partition',
            `alter table analytics.customer_scores detach partition analytics."${old}"`,
          );
          await rawQuery(client, 'write-scores.drop-partition', `drop table analytics."${old}"`);
        }
        // Rows of this account inserted straight into customer_scores (seeds) are replaced too; ATTACH
        // would refuse to run while the default partition holds any.
        await recomputeDbOn(client)
          .deleteFrom('analytics.customer_scores_default')
          .where('account_id', '=', batch.accountId)
          .execute();
        if (table) {
          await rawQuery(
            client,
            'write-scores.attach-partition',
            `alter table analytics.customer_scores attach partition analytics."${table}"
               for values in (${client.escapeLiteral(batch.accountId)})`,
          );
        }
        if (fit) await insertFit(client, batch, fit);
        await recordMix(client, batch, counts.mix);
        await writeScoreBins(client, batch.accountId, batch.asOf, counts.bins);
      });
      return;
    } catch (err) {
      // 55P03 lock_not_available: a long reader held customer_scores; try again shortly.
      if ((err as { code?: string }).code !== '55P03' || attempt >= SWAP_ATTEMPTS) throw err;
      await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
    }
  }
}

async function attachedPartitions(client: PoolClient, prefix: string): Promise<string[]> {
  const { rows } = await rawQuery<{ name: string }>(
    client,
    'write-scores.attached-partitions',
    `select c.relname as name from pg_inherits i
       join pg_class c on c.oid = i.inhrelid
      where i.inhparent = 'analytics.customer_scores'::regclass and c.relname like $1`,
    [`${prefix}%`],
  );
  return rows.map((r) => r.name);
}

/** Tables of the account that are not attached: left by a recompute that died before its swap. */
async function dropDetached(client: PoolClient, prefix: string): Promise<void> {
  const { rows } = await rawQuery<{ name: string }>(
    client,
    'write-scores.detached-partitions',
    `select c.relname as name from pg_class c
       join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = 'analytics' and c.relkind = 'r' and c.relname like $1
        and not exists (select 1 from pg_inherits i where i.inhrelid = c.oid)`,
    [`${prefix}%`],
  );
  for (const r of rows) {
    await rawQuery(client, 'write-scores.drop-detached', `drop table if exists analytics."${r.name}"`);
  }
}

/**
 * The lifecycle mix of this recompute, kept for the mix over time (customer_scores keeps the latest
 * recompute only): replaced when the same as_of is written again.
 */
async function recordMix(
  client: PoolClient,
  batch: Pick<ScoreTable, 'accountId' | 'asOf'>,
  mix: readonly MixRow[],
): Promise<void> {
  const db = recomputeDbOn(client);
  await db
    .deleteFrom('analytics.lifecycle_mix')
    .where('account_id', '=', batch.accountId)
    .where('as_of', '=', batch.asOf)
    .execute();
  if (mix.length === 0) return;
  await db
    .insertInto('analytics.lifecycle_mix')
    .values(
      mix.map((m) => ({
        account_id: batch.accountId,
        as_of: batch.asOf,
        lifecycle_state: m.lifecycle_state as LifecycleMixTable['lifecycle_state'],
        customers: m.customers,
      })),
    )
    .execute();
}

async function insertFit(
  client: PoolClient,
  batch: Pick<ScoreTable, 'accountId' | 'asOf'>,
  fit: ModelFitRow,
): Promise<void> {
  await recomputeDbOn(client)
    .insertInto('analytics.model_fits')
    .values({
      account_id: batch.accountId,
      as_of: batch.asOf,
      model: fit.model,
      params: JSON.stringify(fit.params),
      log_likelihood: fit.logLikelihood,
      customers: fit.customers,
      repeat_customers: fit.repeatCustomers,
      converged: fit.converged,
      ...holdoutValues(fit.holdout),
    })
    .onConflict((oc) =>
      oc.columns(['account_id', 'as_of']).doUpdateSet((eb) => ({
        model: eb.ref('excluded.model'),
        params: eb.ref('excluded.params'),
        log_likelihood: eb.ref('excluded.log_likelihood'),
        customers: eb.ref('excluded.customers'),
        repeat_customers: eb.ref('excluded.repeat_customers'),
        converged: eb.ref('excluded.converged'),
        holdout_weeks: eb.ref('excluded.holdout_weeks'),
        holdout_customers: eb.ref('excluded.holdout_customers'),
        holdout_choice: eb.ref('excluded.holdout_choice'),
        holdout_reason: eb.ref('excluded.holdout_reason'),
        holdout_aggregate_error: eb.ref('excluded.holdout_aggregate_error'),
        holdout_correlation: eb.ref('excluded.holdout_correlation'),
        holdout_mae: eb.ref('excluded.holdout_mae'),
        calibration_error: eb.ref('excluded.calibration_error'),
        reliability: eb.ref('excluded.reliability'),
        holdout_candidates: eb.ref('excluded.holdout_candidates'),
      })),
    )
    .execute();
}

/** Lapsed customers fetched from the cursor at a time: the only per-customer memory of the announcement. */
const CHURNED_FETCH_ROWS = 5000;

/**
 * Records `customer.churned` for every customer the new scores put in Lapsed whose previous scores had
 * it in another state (`movedIntoLapsed`), in the swap's transaction: the event exists exactly when the
 * new scores do. Its id is derived from the customer and its purchase count (`customerChurned`), so a
 * second recompute (the customer is Lapsed already) or a replay of the same purchases emits nothing.
 *
 * The customers come from SQL, not from memory: the new partition's Lapsed rows joined with the old
 * scores, each one's purchase count (purchase days: x + 1) from the recompute's staged summaries
 * (`meta.stage`), read through a cursor CHURNED_FETCH_ROWS at a time.
 */
async function announceChurned(client: PoolClient, table: string, meta: ScoreTable): Promise<void> {
  await rawQuery(
    client,
    'write-scores.churned',
    `declare churned no scroll cursor for
     select n.customer_id, n.external_id, n.churn_risk, o.lifecycle_state as previous, s.x + 1 as purchases
       from analytics."${table}" n
       join analytics.customer_scores o
         on o.account_id = ${client.escapeLiteral(meta.accountId)} and o.customer_id = n.customer_id
       join analytics."${meta.stage}" s on s.customer_id = n.customer_id::text
      where n.lifecycle_state = 'Lapsed' and o.lifecycle_state <> 'Lapsed'`,
  );
  const db = recomputeDbOn(client) as unknown as Kysely<Database>;
  for (;;) {
    const { rows } = await client.query<{
      customer_id: string;
      external_id: string | null;
      churn_risk: number;
      previous: string;
      purchases: number;
    }>(
      // The first fetch runs the cursor's join: the long bound client-side too (allowLongStatements).
      longQuery({
        text: namedSql('write-scores.churned-fetch', `fetch forward ${CHURNED_FETCH_ROWS} from churned`),
      }),
    );
    const events = rows
      .filter((r) => movedIntoLapsed(r.previous, 'Lapsed'))
      .map((r) => ({
        accountId: meta.accountId,
        occurredAt: meta.asOf,
        ...customerChurned({
          customerId: r.customer_id,
          externalId: r.external_id,
          purchases: Number(r.purchases),
          previousState: r.previous,
          churnRisk: Number(r.churn_risk),
          scoredAt: meta.asOf,
        }),
      }));
    await recordOutboundEvents(db, events);
    if (rows.length < CHURNED_FETCH_ROWS) break;
  }
  await rawQuery(client, 'write-scores.churned-close', 'close churned');
}

/** The holdout check's columns of model_fits (all null without a check). */
function holdoutValues(h: HoldoutColumns | null) {
  return {
    holdout_weeks: h?.holdoutWeeks ?? null,
    holdout_customers: h?.holdoutCustomers ?? null,
    holdout_choice: h?.choice ?? null,
    holdout_reason: h?.reason ?? null,
    holdout_aggregate_error: h?.chosen?.aggregateError ?? null,
    holdout_correlation: h?.chosen?.correlation ?? null,
    holdout_mae: h?.chosen?.meanAbsoluteError ?? null,
    calibration_error: h?.chosen?.calibrationError ?? null,
    reliability: h?.reliability ? JSON.stringify(h.reliability) : null,
    holdout_candidates: h ? JSON.stringify(h.candidates) : null,
  };
}
