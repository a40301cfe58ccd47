import type { Kysely } from 'kysely';
import { applyPrivileges } from '@holdfast/db';
import { Migrator, type Migration, type MigrationProvider } from 'kysely/migration';
import * as campaigns from './2026-11-23T09-00-campaigns.js';
import * as controls from './2026-11-24T00-00-campaign-controls.js';
import * as retries from './2026-11-24T03-00-send-retries.js';

/**
 * The campaign, attribution and lift tables (schema `analytics`), in order. ISO-date names; never edit
 * one that has run.
 */
export const CAMPAIGN_MIGRATIONS: Readonly<Record<string, Migration>> = Object.freeze({
  '2026-11-23T09-00-campaigns': campaigns,
  '2026-11-24T00-00-campaign-controls': controls,
  '2026-11-24T03-00-send-retries': retries,
});

class StaticProvider implements MigrationProvider {
  getMigrations(): Promise<Record<string, Migration>> {
    return Promise.resolve({ ...CAMPAIGN_MIGRATIONS });
  }
}

/**
 * Brings the campaign tables up to date, with a history of its own
 * (`public.holdfast_campaign_migrations`) for the reason `migrateAnalytics` gives: kysely refuses to
 * migrate when the shared history lists a migration the running process does not know, so sharing
 * `holdfast_migrations` would stop the gateway and the CLI from starting. Independent of the scores
 * migration (it creates schema `analytics` if missing), safe from several processes at once.
 *
 * @example
 * await migrateCampaigns(createDb(pool) as Kysely<unknown>);
 */
export async function migrateCampaigns(db: Kysely<unknown>): Promise<string[]> {
  const migrator = new Migrator({
    db,
    provider: new StaticProvider(),
    migrationTableSchema: 'public',
    migrationTableName: 'holdfast_campaign_migrations',
    migrationLockTableName: 'holdfast_campaign_migrations_lock',
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(JSON.stringify(error));
  // The tables just created go to their owner role and get their grants (a no-op for a service role).
  await applyPrivileges(db);
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
