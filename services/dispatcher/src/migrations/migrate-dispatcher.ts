import type { Kysely } from 'kysely';
import { applyPrivileges } from '@holdfast/db';
import { Migrator, type Migration, type MigrationProvider } from 'kysely/migration';
import * as dispatcher from './2026-11-23T10-00-dispatcher.js';

/** The dispatcher's migrations, in order (ISO-date names; never edit one that has run). */
export const DISPATCHER_MIGRATIONS: Readonly<Record<string, Migration>> = {
  '2026-11-23T10-00-dispatcher': dispatcher,
};

class Provider implements MigrationProvider {
  getMigrations(): Promise<Record<string, Migration>> {
    return Promise.resolve({ ...DISPATCHER_MIGRATIONS });
  }
}

/**
 * Brings schema `dispatcher` up to date. Its history is kept in `public.holdfast_dispatcher_migrations`,
 * apart from the shared `public.holdfast_migrations` (the recompute's analytics migrations do the
 * same): kysely's migrator refuses to run when the history holds a migration the running process did
 * not register, so a shared history would stop the dispatcher from starting whenever another service,
 * with other migrations registered, migrated first. Safe from several processes at once (kysely lock).
 */
export async function migrateDispatcher(db: Kysely<unknown>): Promise<string[]> {
  const migrator = new Migrator({
    db,
    provider: new Provider(),
    migrationTableSchema: 'public',
    migrationTableName: 'holdfast_dispatcher_migrations',
    migrationLockTableName: 'holdfast_dispatcher_migrations_lock',
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(JSON.stringify(error));
  // The tables just created go to their owner role and get their grants (a no-op for a service role).
  await applyPrivileges(db);
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
