/**
 * PostgreSQL connections, transactions and migrations: pools, named SQL, the control plane's kysely
 * schema, its migrations and the service roles' privileges, projection checkpoints.
 */
export {
  clientQueryTimeoutMs,
  createDb,
  createPool,
  type Pool,
  POOL_DEFAULTS,
  type PoolClient,
  type PoolOptions,
  QUERY_TIMEOUT_MARGIN_MS,
} from './pool.js';
export { beginStatement, inTransaction, type TransactionOptions, withTransaction } from './transaction.js';
export { namedRaw, namedSql, rawQuery, type RawQueryable } from './named-sql.js';
export { kyselyOn } from './kysely-on-client.js';
export {
  type AccountRole,
  type AccountsTable,
  type AnalystGrantsTable,
  type ApiKeyKind,
  type ApiKeysTable,
  type AuditLogTable,
  type CheckpointDatabase,
  type ConsoleSessionsTable,
  type Database,
  type DeliveriesTable,
  type DeliveryAttemptsTable,
  type DeliveryStatus,
  type InvitesTable,
  type MembershipsTable,
  type OutboundEventsTable,
  type PixelKeysTable,
  type PixelOriginsTable,
  type ProjectionCheckpointsTable,
  type ProviderInboundSecretsTable,
  type ProviderKind,
  type ProviderSecretsTable,
  type ProvidersTable,
  type RateCountersTable,
  type RecoveryCodesTable,
  type SettingsOutboxTable,
  type SignInFailuresTable,
  type SubscriptionQuarantineTable,
  type SyncOutboxTable,
  type SyncStatus,
  type SyncTasksTable,
  type TileName,
  type TilesTable,
  type UsersTable,
  type WebhookSecretsTable,
  type WebhookSubscriptionsTable,
} from './schema.js';
export { rowColumns } from './row-columns.js';
export { CONTROL_PLANE_MIGRATIONS, migrateSchema, migrateToLatest, type MigrationSet } from './migrate.js';
export {
  adoptSchema,
  ANALYST_GRANTED_ACCOUNTS,
  ANALYST_GRANTS_TABLE,
  ANALYST_POLICY,
  ANALYST_ROW_FILTER,
  canActAs,
  enableAccountRowSecurity,
  qualified,
  type RunSql,
  SERVICE_ROLES,
  type ServiceRole,
  serviceRolesExist,
} from './privileges/service-roles.js';
export {
  applyPrivileges,
  GATEWAY_DISPATCHER_GRANTS,
  PRIVILEGES_LOCK_SQL,
} from './privileges/apply-privileges.js';
export {
  type CheckpointKey,
  checkpointTableDdl,
  lockCheckpointVersion,
  readCheckpoint,
  writeCheckpoint,
} from './checkpoints.js';
export { sql } from 'kysely';
