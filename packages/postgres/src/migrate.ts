import { sql, type Kysely } from 'kysely';
import { Migrator, type Migration, type MigrationProvider } from 'kysely/migration';
import * as controlPlane from './migrations/2026-11-22T00-00-control-plane.js';
import * as secrets from './migrations/2026-11-24T01-00-secrets.js';
import * as roles from './migrations/2026-11-24T02-00-roles.js';
import * as fx from './migrations/2026-11-24T03-00-fx.js';
import * as providerCredentials from './migrations/2026-11-24T03-00-provider-credentials.js';
import * as analystGrants from './migrations/2026-11-25T00-00-analyst-grants.js';
import * as privacy from './migrations/2026-11-27T00-00-privacy.js';
import * as providerInboundSecrets from './migrations/2026-11-27T00-00-provider-inbound-secrets.js';
import * as privacyRequests from './migrations/2026-11-27T01-00-privacy-requests.js';
import * as syncOutbox from './migrations/2026-11-28T00-00-sync-outbox.js';
import * as readKeys from './migrations/2026-11-28T12-00-read-keys.js';
import * as webhookEventTypes from './migrations/2026-11-28T14-00-webhook-event-types.js';
import * as consoleMigration from './migrations/2026-11-29T00-00-console.js';
import * as sendClaims from './migrations/2026-11-29T12-00-send-claims.js';
import * as consoleTotpSealed from './migrations/2026-11-30T00-00-console-totp-sealed.js';
import * as erasureAnonymousId from './migrations/2026-11-30T00-00-erasure-anonymous-id.js';
import * as settingsOutbox from './migrations/2026-11-30T01-00-settings-outbox.js';
import * as recoveryCodes from './migrations/2026-11-30T02-00-console-recovery-codes.js';
import * as browserSuppressions from './migrations/2026-11-30T03-00-browser-suppressions.js';
import { namedRaw } from './named-sql.js';
import { applyPrivileges, PRIVILEGES_LOCK_SQL } from './privileges/apply-privileges.js';

/**
 * Every migration, in order. Add new ones here with an ISO-date name; never edit one that has run.
 * Read-model tables are not here: they are created per schema by the projector, so a rebuild can
 * create them in a fresh schema.
 */
const MIGRATIONS: Readonly<Record<string, Migration>> = {
  '2026-11-22T00-00-control-plane': controlPlane,
  '2026-11-24T01-00-secrets': secrets,
  '2026-11-24T02-00-roles': roles,
  '2026-11-24T03-00-fx': fx,
  '2026-11-24T03-00-provider-credentials': providerCredentials,
  '2026-11-25T00-00-analyst-grants': analystGrants,
  '2026-11-27T00-00-privacy': privacy,
  '2026-11-27T00-00-provider-inbound-secrets': providerInboundSecrets,
  '2026-11-27T01-00-privacy-requests': privacyRequests,
  '2026-11-28T00-00-sync-outbox': syncOutbox,
  '2026-11-28T12-00-read-keys': readKeys,
  '2026-11-28T14-00-webhook-event-types': webhookEventTypes,
  '2026-11-29T00-00-console': consoleMigration,
  '2026-11-29T12-00-send-claims': sendClaims,
  '2026-11-30T00-00-console-totp-sealed': consoleTotpSealed,
  '2026-11-30T00-00-erasure-anonymous-id': erasureAnonymousId,
  '2026-11-30T01-00-settings-outbox': settingsOutbox,
  '2026-11-30T02-00-console-recovery-codes': recoveryCodes,
  '2026-11-30T03-00-browser-suppressions': browserSuppressions,
};

/**
 * One schema's migrations and the table that keeps their history. Each owner (control plane,
 * analytics, campaigns, dispatcher) keeps a history of its own: kysely refuses to migrate when the
 * history lists a migration the running process did not register ("corrupted migrations: previously
 * executed migration … is missing"), so a shared history would stop every service that migrates
 * with fewer migrations registered (the gateway and the CLI run the control plane's only).
 */
export interface MigrationSet {
  /** The history table in schema `public` (its lock table is `<history>_lock`). */
  readonly history: string;
  /** The migrations in order (ISO-date names; never edit one that has run). */
  readonly migrations: Readonly<Record<string, Migration>>;
}

/** The control plane's migrations (schemas `control`, `fx`, `privacy`, the roles). */
export const CONTROL_PLANE_MIGRATIONS: MigrationSet = Object.freeze({
  history: 'holdfast_migrations',
  migrations: Object.freeze(MIGRATIONS),
});

/**
 * The one migrator: brings `set` to its latest migration, then (for the migration owner) re-applies
 * every service role's grants, so tables just created go to their owner role (a no-op for a service
 * role). Safe from several processes at once (kysely's migration lock).
 *
 * @example
 * await migrateSchema(createDb(pool) as Kysely<unknown>, DISPATCHER_MIGRATIONS);
 */
export async function migrateSchema(db: Kysely<unknown>, set: MigrationSet): Promise<string[]> {
  const provider: MigrationProvider = {
    getMigrations: () => Promise.resolve(withPrivilegesLock(set.migrations)),
  };
  const migrator = new Migrator({
    db,
    provider,
    migrationTableSchema: 'public',
    migrationTableName: set.history,
    migrationLockTableName: `${set.history}_lock`,
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(JSON.stringify(error));
  await applyPrivileges(db);
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/**
 * Each migration first takes the privileges lock (held to the end of the migrator's transaction):
 * migrations GRANT, and kysely's own lock serialises migrators only, not `applyPrivileges` of another
 * service starting at the same moment ("tuple concurrently updated"). Lock order is always kysely's,
 * then this one; `applyPrivileges` takes this one alone, so no cycle.
 */
function withPrivilegesLock(migrations: Readonly<Record<string, Migration>>): Record<string, Migration> {
  return Object.fromEntries(
    Object.entries(migrations).map(([name, m]) => [
      name,
      {
        ...m,
        up: async (db: Kysely<unknown>) => {
          await namedRaw('migrate.privileges-lock', sql.raw(PRIVILEGES_LOCK_SQL)).execute(db);
          await m.up(db);
        },
      },
    ]),
  );
}

/** Brings the control plane to its latest migration (`migrateSchema` with `CONTROL_PLANE_MIGRATIONS`). */
export function migrateToLatest(db: Kysely<unknown>): Promise<string[]> {
  return migrateSchema(db, CONTROL_PLANE_MIGRATIONS);
}
