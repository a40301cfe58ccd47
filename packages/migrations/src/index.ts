/**
 * The migration sets of the schemas services own. Each owner runs its own at start (the recompute:
 * analytics, campaigns, sync work; the dispatcher: deliveries); `holdfast migrate` runs them all,
 * after the control plane's (@holdfast/postgres), so a deployment migrates in one step before the services
 * start.
 */
import type { Kysely } from 'kysely';
import { migrateAnalytics } from './analytics/migrate-analytics.js';
import { migrateCampaigns } from './campaigns/migrate-campaigns.js';
import { migrateDispatcher } from './dispatcher/migrate-dispatcher.js';
import { migrateRecompute } from './sync-work/migrate-sync-work.js';

export { ANALYTICS_MIGRATIONS, migrateAnalytics } from './analytics/migrate-analytics.js';
export { CAMPAIGN_MIGRATIONS, migrateCampaigns } from './campaigns/migrate-campaigns.js';
export { DISPATCHER_MIGRATIONS, migrateDispatcher } from './dispatcher/migrate-dispatcher.js';
export { RECOMPUTE_MIGRATIONS, migrateRecompute } from './sync-work/migrate-sync-work.js';

/** One service-owned schema's migrations, as `holdfast migrate` runs them. */
export interface ServiceMigrations {
  /** The set's name, as an operator reads it: analytics, campaigns, sync-work, dispatcher. */
  readonly name: string;
  /** The service that owns (and at start migrates) the schema. */
  readonly owner: 'recompute' | 'dispatcher';
  readonly migrate: (db: Kysely<unknown>) => Promise<string[]>;
}

/** Every set, in the order `holdfast migrate` applies them. */
export const SERVICE_MIGRATIONS: readonly ServiceMigrations[] = Object.freeze([
  { name: 'analytics', owner: 'recompute', migrate: migrateAnalytics },
  { name: 'campaigns', owner: 'recompute', migrate: migrateCampaigns },
  { name: 'sync-work', owner: 'recompute', migrate: migrateRecompute },
  { name: 'dispatcher', owner: 'dispatcher', migrate: migrateDispatcher },
]);

/** The sets a deployment needs: one missing would leave its owner to fail at start, or a table absent. */
export const REQUIRED_MIGRATION_SETS: readonly string[] = Object.freeze(
  SERVICE_MIGRATIONS.map((s) => s.name),
);

/** Some required migration sets are not among those given. */
export class MigrationSetMissingError extends Error {
  override readonly name = 'MigrationSetMissingError';
  constructor(readonly missing: readonly string[]) {
    super(
      `migration set${missing.length === 1 ? '' : 's'} ${missing.join(', ')} missing: nothing was migrated (is the installation complete?)`,
    );
  }
}

/**
 * The rule: `holdfast migrate` runs only with every required set present, each with a migrate
 * function; otherwise it fails before migrating anything (it once printed "skipped" and went on).
 */
export function requireMigrationSets(
  sets: readonly ServiceMigrations[],
  required: readonly string[] = REQUIRED_MIGRATION_SETS,
): readonly ServiceMigrations[] {
  const present = new Set(sets.filter((s) => typeof s.migrate === 'function').map((s) => s.name));
  const missing = required.filter((name) => !present.has(name));
  if (missing.length) throw new MigrationSetMissingError(missing);
  return sets;
}
