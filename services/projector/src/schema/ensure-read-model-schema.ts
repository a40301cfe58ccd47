import { checkpointTableDdl, type Pool } from '@holdfast/db';
import { grantAnalystAccess } from './analyst-role.js';
import { viewsDdl } from './views.js';
import { customerEventsDdl, customersDdl, ordersDdl, zeroPartySubmissionsDdl } from './commerce-tables.js';
import {
  accountSettingsDdl,
  campaignSendsDdl,
  deadLettersDdl,
  ingestBatchesDdl,
  pixelEventsDdl,
} from './stream-tables.js';

/** Every read-model table, by name: what a full rebuild swaps and what the equality test digests. */
export const READ_MODEL_TABLES = [
  'orders',
  'customers',
  'customer_events',
  'zero_party_submissions',
  'account_settings',
  'ingest_batches',
  'pixel_events',
  'campaign_sends',
  'dead_letters',
] as const;

export type ReadModelTable = (typeof READ_MODEL_TABLES)[number];

const DDL: Record<ReadModelTable, (schema: string) => string> = {
  orders: ordersDdl,
  customers: customersDdl,
  customer_events: customerEventsDdl,
  zero_party_submissions: zeroPartySubmissionsDdl,
  account_settings: accountSettingsDdl,
  ingest_batches: ingestBatchesDdl,
  pixel_events: pixelEventsDdl,
  campaign_sends: campaignSendsDdl,
  dead_letters: deadLettersDdl,
};

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** Rejects schema names that would need quoting rules beyond `"name"` (they come from env and CLI flags). */
export function assertSchemaName(schema: string): string {
  if (!SCHEMA_NAME.test(schema)) throw new Error(`invalid read-model schema name "${schema}"`);
  return schema;
}

/**
 * Creates the read-model schema, every read-model table and the projection checkpoints in it, and
 * the analyst role's grants. Idempotent, and safe when the gateway, the projector and tests call it
 * at once: one advisory lock serialises the DDL (concurrent `create table if not exists` can still
 * collide on the catalog).
 *
 * @example
 * await ensureReadModelSchema(pool, 'read_models');
 * await pool.query('select count(*) from read_models.orders where account_id = $1', [accountId]);
 */
export async function ensureReadModelSchema(pool: Pool, schema = 'read_models'): Promise<void> {
  assertSchemaName(schema);
  const client = await pool.connect();
  try {
    await client.query('begin');
    await client.query(`select pg_advisory_xact_lock(hashtext('holdfast.ensure_read_models'))`);
    await client.query(`create schema if not exists "${schema}"`);
    for (const table of READ_MODEL_TABLES) await client.query(DDL[table](schema));
    await client.query(checkpointTableDdl(schema));
    await client.query(viewsDdl(schema));
    await grantAnalystAccess(client, schema);
    await client.query('commit');
  } catch (err) {
    await client.query('rollback').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}
