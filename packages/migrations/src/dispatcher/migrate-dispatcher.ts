import type { Kysely } from 'kysely';
import { migrateSchema, type MigrationSet } from '@holdfast/postgres';
import * as dispatcher from './2026-11-23T10-00-dispatcher.js';
import * as quarantine from './2026-11-27T10-00-subscription-quarantine.js';
import * as gatewayReads from './2026-11-28T14-00-gateway-delivery-reads.js';

/** The dispatcher's migrations, in order (ISO-date names; never edit one that has run). */
export const DISPATCHER_MIGRATIONS: MigrationSet = Object.freeze({
  history: 'holdfast_dispatcher_migrations',
  migrations: Object.freeze({
    '2026-11-23T10-00-dispatcher': dispatcher,
    '2026-11-27T10-00-subscription-quarantine': quarantine,
    '2026-11-28T14-00-gateway-delivery-reads': gatewayReads,
  }),
});

/** Brings schema `dispatcher` up to date (history in `public.holdfast_dispatcher_migrations`). */
export function migrateDispatcher(db: Kysely<unknown>): Promise<string[]> {
  return migrateSchema(db, DISPATCHER_MIGRATIONS);
}
