// The one way to start the projector (and the recompute's sync consumer) under test: in this process,
// on one test file's database and topics. (The read-side calls through the gateway are `readSide`.)
import { silentLogger } from '@holdfast/platform';
import type { TestEnv } from '../test-env.js';
import type { RunningConsumer } from '@holdfast/kafka';
import { startProjector, type RunningProjector } from '@holdfast/projections';
import { DEFAULT_READ_MODEL_SCHEMA, ensureReadModelSchema } from '@holdfast/read-models';
import type { Kysely } from 'kysely';
import { migrateRecompute } from '@holdfast/migrations';
import { startSyncConsumer } from '@holdfast/recompute';

/** Creates the read-model tables the gateway reads (idempotent). */
export function ensureReadModels(t: TestEnv): Promise<void> {
  return ensureReadModelSchema(t.pool, DEFAULT_READ_MODEL_SCHEMA);
}

/** Every projection, under its own consumer group. */
export function runProjector(t: TestEnv, group = 'projector'): Promise<RunningProjector> {
  return startProjector(
    {
      topicPrefix: t.topicPrefix,
      readSchema: DEFAULT_READ_MODEL_SCHEMA,
      groupId: `${t.topicPrefix}${group}`,
      sessionTimeoutMs: 6_000,
    },
    { pool: t.pool, kafka: t.kafka, codec: t.codec, logger: silentLogger },
  );
}

/** The recompute service's sync-command consumer, after the recompute's migrations (as its main runs them). */
export async function runSyncConsumer(t: TestEnv, now?: () => Date): Promise<RunningConsumer> {
  await migrateRecompute(t.db as unknown as Kysely<unknown>);
  return startSyncConsumer(
    {
      infra: {
        databaseUrl: t.databaseUrl,
        kafkaBrokers: [],
        schemaRegistryUrl: '',
        topicPrefix: t.topicPrefix,
        partitions: t.partitions,
      },
      readModelSchema: DEFAULT_READ_MODEL_SCHEMA,
      // `runProjector`'s group: its committed offsets tell a sync's barrier apart from markers.
      projectorGroupId: `${t.topicPrefix}projector`,
    },
    { pool: t.pool, kafka: t.kafka, codec: t.codec, now },
  );
}
