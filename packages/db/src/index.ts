/** PostgreSQL access: pools, the kysely database type, migrations and projection checkpoints. */
export * from './pool.js';
export * from './transaction.js';
export * from './named-sql.js';
export * from './kysely-on-client.js';
export * from './schema.js';
export * from './migrate.js';
export * from './checkpoints.js';
export { sql } from 'kysely';
export * from './credentials.js';
export * from './control-plane.js';
export * from './control-plane-queries.js';
export * from './sync-tasks.js';
export * from './secrets-keyring.js';
export * from './webhook-secrets.js';
export * from './webhook-deliveries.js';
export * from './privileges/index.js';
export * from './unsubscribe-token.js';
export * from './provider-credentials.js';
