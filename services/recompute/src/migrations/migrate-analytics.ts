import type { Kysely } from 'kysely';
import { applyPrivileges } from '@holdfast/db';
import { Migrator, type Migration, type MigrationProvider } from 'kysely/migration';
import * as analyticsScores from './2026-11-22T12-00-analytics-scores.js';

/** The recompute service's migrations (schema `analytics`), in order. Add new ones with an ISO-date name. */
export const ANALYTICS_MIGRATIONS: Readonly<Record<string, Migration>> = Object.freeze({
  '2026-11-22T12-00-analytics-scores': analyticsScores,
});

class StaticProvider implements MigrationProvider {
  getMigrations(): Promise<Record<string, Migration>> {
    return Promise.resolve({ ...ANALYTICS_MIGRATIONS });
  }
}

/**
 * Brings schema `analytics` to the latest migration; safe from several processes at once (kysely's
 * migration lock).
 *
 * Why a migration table of its own instead of `registerMigrations` into `holdfast_migrations`: kysely
 * refuses to migrate when the table lists a migration the running process does not know ("corrupted
 * migrations: previously executed migration … is missing"). The gateway and the CLI migrate with the
 * control-plane migrations only, so once the recompute had recorded its migration there, they would
 * stop starting. With its own table each owner migrates what it owns, in any order.
 *
 * @example
 * await migrateAnalytics(createDb(pool) as Kysely<unknown>);
 */
export async function migrateAnalytics(db: Kysely<unknown>): Promise<string[]> {
  const migrator = new Migrator({
    db,
    provider: new StaticProvider(),
    migrationTableSchema: 'public',
    migrationTableName: 'holdfast_analytics_migrations',
    migrationLockTableName: 'holdfast_analytics_migrations_lock',
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(JSON.stringify(error));
  // The tables just created go to their owner role and get their grants (a no-op for a service role).
  await applyPrivileges(db);
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
