import type { Kysely } from 'kysely';
import { Migrator, type Migration, type MigrationProvider } from 'kysely/migration';
import * as controlPlane from './migrations/2026-11-22T00-00-control-plane.js';
import * as secrets from './migrations/2026-11-24T01-00-secrets.js';
import * as roles from './migrations/2026-11-24T02-00-roles.js';
import * as fx from './migrations/2026-11-24T03-00-fx.js';
import * as providerCredentials from './migrations/2026-11-24T03-00-provider-credentials.js';
import { applyPrivileges } from './privileges/apply-privileges.js';

/**
 * Every migration, in order. Add new ones here with an ISO-date name; never edit one that has run.
 * Read-model tables are not here: they are created per schema by the projector, so a rebuild can
 * create them in a fresh schema.
 */
const MIGRATIONS: Record<string, Migration> = {
  '2026-11-22T00-00-control-plane': controlPlane,
  '2026-11-24T01-00-secrets': secrets,
  '2026-11-24T02-00-roles': roles,
  '2026-11-24T03-00-fx': fx,
  '2026-11-24T03-00-provider-credentials': providerCredentials,
};

class StaticProvider implements MigrationProvider {
  getMigrations(): Promise<Record<string, Migration>> {
    return Promise.resolve(MIGRATIONS);
  }
}

/** Registers more migrations (owned by other packages) before `migrateToLatest` runs. */
export function registerMigrations(more: Record<string, Migration>): void {
  Object.assign(MIGRATIONS, more);
}

/**
 * Brings the database to the latest migration, then (for the migration owner) re-applies every
 * service role's grants; safe to run from several processes at once.
 */
export async function migrateToLatest(db: Kysely<unknown>): Promise<string[]> {
  const migrator = new Migrator({
    db,
    provider: new StaticProvider(),
    migrationTableSchema: 'public',
    migrationTableName: 'holdfast_migrations',
    migrationLockTableName: 'holdfast_migrations_lock',
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(JSON.stringify(error));
  await applyPrivileges(db);
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
