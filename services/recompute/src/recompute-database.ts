import { createDb, kyselyOn, type Database, type Pool, type PoolClient } from '@holdfast/postgres';
import type { CampaignTables } from '@holdfast/campaign-store';
import type { ReadModelTables } from '@holdfast/read-models';
import type { Kysely } from 'kysely';
import type { RecomputeTables } from './migrations/tables.js';

/**
 * Every table the recompute reads or writes, for kysely: the control plane, its own (`recompute`,
 * the scores), the campaign tables, and the read models by unqualified name (`withSchema`).
 */
export interface RecomputeDatabase extends Database, RecomputeTables, CampaignTables, ReadModelTables {}

const instances = new WeakMap<Pool, Kysely<RecomputeDatabase>>();

/** The kysely instance over the pool (one per pool: never destroyed, the pool's owner ends the pool). */
export function recomputeDb(pool: Pool): Kysely<RecomputeDatabase> {
  let db = instances.get(pool);
  if (!db) instances.set(pool, (db = createDb(pool) as unknown as Kysely<RecomputeDatabase>));
  return db;
}

/** A kysely instance over a client the caller holds (inside `withTransaction`). */
export const recomputeDbOn = (client: PoolClient): Kysely<RecomputeDatabase> =>
  kyselyOn<RecomputeDatabase>(client);
