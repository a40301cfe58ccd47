import type { Kysely } from 'kysely';
import { migrateSchema, type MigrationSet } from '@holdfast/postgres';
import * as syncWork from './2026-11-24T07-00-sync-work.js';

/** The recompute's own state (schema `recompute`: checkpoints, the sync work queue), in order. */
export const RECOMPUTE_MIGRATIONS: MigrationSet = Object.freeze({
  history: 'holdfast_recompute_migrations',
  migrations: Object.freeze({
    '2026-11-24T07-00-sync-work': syncWork,
  }),
});

/** Brings schema `recompute` up to date (history in `public.holdfast_recompute_migrations`). */
export function migrateRecompute(db: Kysely<unknown>): Promise<string[]> {
  return migrateSchema(db, RECOMPUTE_MIGRATIONS);
}
