import type { Kysely } from 'kysely';
import { migrateSchema, type MigrationSet } from '@holdfast/postgres';
import * as campaigns from './2026-11-23T09-00-campaigns.js';
import * as controls from './2026-11-24T00-00-campaign-controls.js';
import * as retries from './2026-11-24T03-00-send-retries.js';
import * as claims from './2026-11-25T00-00-send-claims.js';
import * as decisionCounts from './2026-11-27T18-00-campaign-decision-counts.js';
import * as merchantSends from './2026-11-29T12-00-merchant-sends.js';

/**
 * The campaign, attribution and lift tables (schema `analytics`), in order. ISO-date names; never edit
 * one that has run.
 */
export const CAMPAIGN_MIGRATIONS: MigrationSet = Object.freeze({
  history: 'holdfast_campaign_migrations',
  migrations: Object.freeze({
    '2026-11-23T09-00-campaigns': campaigns,
    '2026-11-24T00-00-campaign-controls': controls,
    '2026-11-24T03-00-send-retries': retries,
    '2026-11-25T00-00-send-claims': claims,
    '2026-11-27T18-00-campaign-decision-counts': decisionCounts,
    '2026-11-29T12-00-merchant-sends': merchantSends,
  }),
});

/** Brings the campaign tables up to date (history in `public.holdfast_campaign_migrations`); independent of the scores migration (it creates schema `analytics` if missing). */
export function migrateCampaigns(db: Kysely<unknown>): Promise<string[]> {
  return migrateSchema(db, CAMPAIGN_MIGRATIONS);
}
