import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { from as copyFrom } from 'pg-copy-streams';
import { inTransaction, namedSql, rawQuery, type Pool, type PoolClient } from '@holdfast/db';
import { recomputeDbOn } from '../recompute-database.js';
import { checkedAccountId } from './load-account-orders.js';
import { modelParams, PER_CUSTOMER_COLUMNS, scoreLines, type ScoreBatch } from './score-rows.js';
import type { HoldoutColumns, ModelFitRow } from './model-fit.js';

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

/**
 * Replaces the account's rows of analytics.customer_scores, atomically.
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
 * retries. A session advisory lock serialises two recomputes of one account (a sync and the nightly
 * run); the later one replaces the earlier one's rows. Tables left by a crash are dropped on the next
 * recompute of the account.
 *
 * The DDL, the COPY, the advisory locks and the catalog reads are raw SQL (kysely has no COPY, and the
 * DDL names a table made up here), each named `write-scores.*`; the fit's upsert and the default
 * partition's delete are kysely.
 */
export async function replaceAccountScores(
  pool: Pool,
  batch: ScoreBatch,
  fit: ModelFitRow | null,
): Promise<void> {
  const prefix = partitionPrefix(batch.accountId);
  const table = `${prefix}${randomBytes(4).toString('hex')}`;
  const client = await pool.connect();
  const lockKey = `holdfast:customer_scores:${batch.accountId}`;
  try {
    await rawQuery(client, 'write-scores.lock-account', `select pg_advisory_lock(hashtextextended($1, 0))`, [
      lockKey,
    ]);
    try {
      await dropDetached(client, prefix);
      if (batch.customerIds.length > 0) await buildPartition(client, table, batch);
      await swap(client, prefix, batch.customerIds.length > 0 ? table : null, batch, fit);
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

async function buildPartition(client: PoolClient, table: string, batch: ScoreBatch): Promise<void> {
  const t = `analytics."${table}"`;
  const literal = (v: string) => client.escapeLiteral(v);
  await inTransaction(client, async () => {
    await rawQuery(
      client,
      'write-scores.create-partition',
      `create table ${t} (like analytics.customer_scores including constraints)`,
    );
    // The partition constraint, stated up front: ATTACH then trusts it instead of scanning the table.
    await rawQuery(
      client,
      'write-scores.partition-constraint',
      `alter table ${t} add constraint account_only check (account_id = ${literal(batch.accountId)})`,
    );
    await rawQuery(
      client,
      'write-scores.set-defaults',
      `alter table ${t}
      alter column account_id set default ${literal(batch.accountId)},
      alter column model set default ${literal(batch.result.model)},
      alter column model_params set default ${literal(JSON.stringify(modelParams(batch.result)))}::jsonb,
      alter column horizon_days set default ${Number(batch.horizonDays)},
      alter column as_of set default ${literal(batch.asOf.toISOString())}::timestamptz`,
    );
    // FREEZE: the table is new in this transaction, so its rows need no later freezing pass.
    await pipeline(
      Readable.from(scoreLines(batch)),
      client.query(
        copyFrom(
          namedSql(
            'write-scores.copy-scores',
            `copy ${t} (${PER_CUSTOMER_COLUMNS.join(', ')}) from stdin with (freeze)`,
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
  });
}

async function swap(
  client: PoolClient,
  prefix: string,
  table: string | null,
  batch: ScoreBatch,
  fit: ModelFitRow | null,
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await inTransaction(client, async () => {
        await rawQuery(
          client,
          'write-scores.lock-timeout',
          `set local lock_timeout = '${SWAP_LOCK_TIMEOUT}'`,
        );
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

async function insertFit(client: PoolClient, batch: ScoreBatch, fit: ModelFitRow): Promise<void> {
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
