import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { from as copyFrom } from 'pg-copy-streams';
import { inTransaction, namedSql, rawQuery, type Pool, type PoolClient } from '@holdfast/db';
import { recomputeDbOn } from '../recompute-database.js';
import { checkedAccountId } from './load-account-orders.js';
import { modelParams, PER_CUSTOMER_COLUMNS, scoreLines, type ScoreBatch } from './score-rows.js';
import type { ModelFitRow } from './model-fit.js';
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
      const counts = batch.customerIds.length > 0 ? await buildPartition(client, table, batch) : NO_COUNTS;
      await swap(client, prefix, batch.customerIds.length > 0 ? table : null, batch, fit, counts);
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
 * state and per score bin there, before the swap, so that the swap's lock is not held for a scan.
 */
async function buildPartition(client: PoolClient, table: string, batch: ScoreBatch): Promise<ScoreCounts> {
  const t = `analytics."${table}"`;
  const literal = (v: string) => client.escapeLiteral(v);
  return inTransaction(client, async () => {
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
  batch: ScoreBatch,
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
async function recordMix(client: PoolClient, batch: ScoreBatch, mix: readonly MixRow[]): Promise<void> {
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
    })
    .onConflict((oc) =>
      oc.columns(['account_id', 'as_of']).doUpdateSet((eb) => ({
        model: eb.ref('excluded.model'),
        params: eb.ref('excluded.params'),
        log_likelihood: eb.ref('excluded.log_likelihood'),
        customers: eb.ref('excluded.customers'),
        repeat_customers: eb.ref('excluded.repeat_customers'),
        converged: eb.ref('excluded.converged'),
      })),
    )
    .execute();
}
