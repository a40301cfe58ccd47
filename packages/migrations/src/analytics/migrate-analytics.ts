import type { Kysely } from 'kysely';
import { migrateSchema, type MigrationSet } from '@holdfast/postgres';
import * as analyticsScores from './2026-11-22T12-00-analytics-scores.js';
import * as modelChecks from './2026-11-27T16-00-model-checks.js';
import * as reportAggregates from './2026-11-27T18-00-report-aggregates.js';

/** The recompute service's migrations (schema `analytics`), in order. Add new ones with an ISO-date name. */
export const ANALYTICS_MIGRATIONS: MigrationSet = Object.freeze({
  history: 'holdfast_analytics_migrations',
  migrations: Object.freeze({
    '2026-11-22T12-00-analytics-scores': analyticsScores,
    '2026-11-27T16-00-model-checks': modelChecks,
    '2026-11-27T18-00-report-aggregates': reportAggregates,
  }),
});

/** Brings schema `analytics` (the scores) up to date (history in `public.holdfast_analytics_migrations`). */
export function migrateAnalytics(db: Kysely<unknown>): Promise<string[]> {
  return migrateSchema(db, ANALYTICS_MIGRATIONS);
}
