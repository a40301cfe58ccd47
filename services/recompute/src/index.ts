/**
 * The recompute service. Today: the sync-command consumer that runs POST /ingest/sync tasks
 * (queued → running → done | failed | skipped). Scoring plugs into its `recompute` hook.
 *
 * @example
 * const consumer = await startSyncConsumer({ infra, readModelSchema: 'read_models' }, { pool, kafka, codec });
 */
export { startSyncConsumer, type SyncConsumerConfig, type SyncConsumerDeps } from './sync-consumer.js';
export { RECOMPUTE_SCHEMA, type SyncTaskRef, type TaskCounts } from './sync-task-store.js';
