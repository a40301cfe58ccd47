// Test support: the real projector and the real sync consumer, in this process, on one test file's
// database and topics. Imported by path until vitest.config.ts aliases @holdfast/<service> to sources
// like the packages (it maps packages/* only, and a service's `default` export points at dist/).
import { silentLogger } from '@holdfast/platform';
import type { TestEnv } from '@holdfast/testing';
import type { RunningConsumer } from '@holdfast/kafka';
import {
  ensureReadModelSchema,
  startProjector,
  type RunningProjector,
} from '../../../projector/src/index.js';
import { startSyncConsumer } from '../../../recompute/src/index.js';

/** Creates the read-model tables the gateway reads (idempotent). */
export function ensureReadModels(t: TestEnv): Promise<void> {
  return ensureReadModelSchema(t.pool, 'read_models');
}

/** Every projection, under its own consumer group. */
export function runProjector(t: TestEnv, group = 'projector'): Promise<RunningProjector> {
  return startProjector(
    {
      topicPrefix: t.topicPrefix,
      readSchema: 'read_models',
      groupId: `${t.topicPrefix}${group}`,
      sessionTimeoutMs: 6_000,
    },
    { pool: t.pool, kafka: t.kafka, codec: t.codec, logger: silentLogger },
  );
}

/** The recompute service's sync-command consumer. */
export function runSyncConsumer(t: TestEnv, now?: () => Date): Promise<RunningConsumer> {
  return startSyncConsumer(
    {
      infra: {
        databaseUrl: t.databaseUrl,
        kafkaBrokers: [],
        schemaRegistryUrl: '',
        topicPrefix: t.topicPrefix,
        partitions: t.partitions,
      },
      readModelSchema: 'read_models',
    },
    { pool: t.pool, kafka: t.kafka, codec: t.codec, now },
  );
}
