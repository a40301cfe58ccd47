import { createDb, kyselyOn, type Database, type Pool, type PoolClient } from '@holdfast/db';
import type { ReadModelTables } from '@holdfast/read-models';
import type { Kysely } from 'kysely';
import type { CampaignTables } from './campaigns/migrations/tables.js';
import type { RecomputeTables } from './migrations/tables.js';

/**
 * Every table the recompute reads or writes, for kysely: the control plane, its own (`recompute`,
 * the scores), the campaign tables, and the read models by unqualified name (`withSchema`).
 */
export interface RecomputeDatabase extends Database, RecomputeTables, CampaignTables, ReadModelTables {}

/** A kysely instance over the pool. */
export const recomputeDb = (pool: Pool): Kysely<RecomputeDatabase> =>
  createDb(pool) as unknown as Kysely<RecomputeDatabase>;

/** A kysely instance over a client the caller holds (inside `withTransaction`). */
export const recomputeDbOn = (client: PoolClient): Kysely<RecomputeDatabase> => kyselyOn<RecomputeDatabase>(client);
