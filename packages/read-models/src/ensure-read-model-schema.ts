import {
  checkpointTableDdl,
  rawQuery,
  withTransaction,
  type Pool,
  type PoolClient,
  type RawQueryable,
} from '@holdfast/postgres';
import {
  actAsReadModelOwner,
  applyReadModelPrivileges,
  revokeAnalystAccess,
  readModelAccess,
} from './analyst-role.js';
import { viewsDdl } from './views.js';
import {
  customerEventsDdl,
  customersDdl,
  customerSubjectsDdl,
  ordersDdl,
  zeroPartySubmissionsDdl,
} from './commerce-tables.js';
import {
  accountSettingsDdl,
  campaignSendsDdl,
  deadLettersDdl,
  ingestBatchesDdl,
  pixelEventsDdl,
} from './stream-tables.js';

/** Every read-model table, by name: what a full rebuild swaps and what the equality test digests. */
/** The schema the read models live in unless configured otherwise (`READ_SCHEMA_SETTING`). */
export const DEFAULT_READ_MODEL_SCHEMA = 'read_models';

/** The environment variable that names the read models' schema, for every service and the CLI. */
export const READ_SCHEMA_SETTING = 'HOLDFAST_READ_SCHEMA';

/**
 * The read models' schema: `explicit` (a command-line option), else `READ_SCHEMA_SETTING` in `env`,
 * else `DEFAULT_READ_MODEL_SCHEMA`.
 */
export function readModelSchemaOf(
  env: Readonly<Record<string, string | undefined>>,
  explicit?: string,
): string {
  return explicit ?? env[READ_SCHEMA_SETTING] ?? DEFAULT_READ_MODEL_SCHEMA;
}

export const READ_MODEL_TABLES = [
  'orders',
  'customers',
  'customer_events',
  'zero_party_submissions',
  'customer_subjects',
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
  customer_subjects: customerSubjectsDdl,
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
 * the service roles' grants and the analyst's row-level security. Everything is created as (and owned
 * by) the projector's role when the service roles exist; a connection that cannot act as it (the
 * gateway's role) only checks the tables are there. Idempotent, and safe when the gateway, the projector and tests call it
 * at once: one advisory lock serialises the DDL (concurrent `create table if not exists` can still
 * collide on the catalog).
 *
 * `deferIndexes` leaves out the indexes only readers use (see `deferrableIndexes`): a rebuild folds
 * into tables without them and builds them once, sorted, with `createDeferredIndexes` (bulk-load
 * practice: maintaining a B-tree row by row costs more than building it at the end).
 *
 * @example
 * await ensureReadModelSchema(pool, 'read_models');
 * await pool.query('select count(*) from read_models.orders where account_id = $1', [accountId]);
 */
export async function ensureReadModelSchema(
  pool: Pool,
  schema = DEFAULT_READ_MODEL_SCHEMA,
  { deferIndexes = false } = {},
): Promise<void> {
  assertSchemaName(schema);
  await withTransaction(pool, async (client) => {
    await rawQuery(
      client,
      'ensure-read-model-schema.lock',
      `select pg_advisory_xact_lock(hashtext('holdfast.ensure_read_models'))`,
    );
    const access = await readModelAccess(client);
    if (access === 'reader') {
      // The gateway's role reads these tables; it may not create them (the owner migrates first).
      await assertReadModelTables(client, schema);
      return;
    }
    if (access === 'owner') await actAsReadModelOwner(client, schema);
    else
      await rawQuery(
        client,
        'ensure-read-model-schema.create-schema',
        `create schema if not exists "${schema}"`,
      );
    for (const table of READ_MODEL_TABLES) {
      const ddl = DDL[table](schema);
      await rawQuery(
        client,
        `ensure-read-model-schema.create-${table}`,
        deferIndexes ? withoutDeferrable(ddl) : ddl,
      );
    }
    await rawQuery(client, 'ensure-read-model-schema.create-checkpoints', checkpointTableDdl(schema));
    await rawQuery(client, 'ensure-read-model-schema.create-views', viewsDdl(schema));
    if (access === 'owner') await applyReadModelPrivileges(client, schema);
    else await revokeAnalystAccess(client, schema);
  });
}

async function assertReadModelTables(client: PoolClient, schema: string): Promise<void> {
  const missing = await missingReadModelTables(client, schema);
  if (missing.length)
    throw new Error(
      `read-model schema "${schema}" lacks ${missing.join(', ')}; run \`holdfast migrate\` as the migration owner first`,
    );
}

/**
 * The read-model tables (and the checkpoints) not yet created in `schema`: empty once the projector
 * has started once, or `holdfast migrate` ran. Readers that may start first (the gateway) check it.
 */
export async function missingReadModelTables(db: RawQueryable, schema: string): Promise<string[]> {
  const { rows } = await rawQuery<{ missing: string[] }>(
    db,
    'ensure-read-model-schema.missing-tables',
    `select array(select t from unnest($1::text[]) t where to_regclass(format('%I.%I', $2::text, t)) is null) as missing`,
    [[...READ_MODEL_TABLES, 'projection_checkpoints'], schema],
  );
  return rows[0]!.missing;
}

// Non-unique indexes the projector itself needs while folding (identity lookups of accounts it does
// not hold in memory). Every other non-unique index serves readers only and may be built last.
const FOLD_INDEXES = new Set([
  'customers_by_email',
  'customers_by_phone',
  'customers_by_email_index',
  'customers_by_phone_index',
]);
const PLAIN_INDEX = /^\s*create index if not exists (\w+) on /i;

function statements(ddl: string): string[] {
  return ddl
    .split(';')
    .map((s) => s.trim())
    .filter(Boolean);
}

const deferrable = (statement: string): boolean => {
  const m = PLAIN_INDEX.exec(statement);
  return m !== null && !FOLD_INDEXES.has(m[1]!);
};

function withoutDeferrable(ddl: string): string {
  return statements(ddl)
    .filter((s) => !deferrable(s))
    .join(';\n');
}

/** The statements `deferIndexes` leaves out, for `schema`. */
export function deferrableIndexes(schema: string): string[] {
  return READ_MODEL_TABLES.flatMap((t) => statements(DDL[t](schema)).filter(deferrable));
}

/**
 * Builds the indexes a `deferIndexes` schema was created without, then refreshes the planner's
 * statistics of every table (a rebuilt table is switched in analysed, not waiting for autovacuum).
 */
export async function createDeferredIndexes(pool: Pool, schema: string): Promise<void> {
  assertSchemaName(schema);
  const client = await pool.connect();
  try {
    await rawQuery(
      client,
      'ensure-read-model-schema.deferred-set-work-mem',
      `set maintenance_work_mem = '256MB'`,
    );
    for (const statement of deferrableIndexes(schema))
      await rawQuery(client, 'ensure-read-model-schema.deferred-create-index', statement);
    await rawQuery(
      client,
      'ensure-read-model-schema.deferred-analyze',
      `analyze ${READ_MODEL_TABLES.map((t) => `"${schema}"."${t}"`).join(', ')}`,
    );
  } finally {
    await rawQuery(
      client,
      'ensure-read-model-schema.deferred-reset-work-mem',
      'reset maintenance_work_mem',
    ).catch(() => {});
    client.release();
  }
}
