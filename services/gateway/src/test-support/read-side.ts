// Test support: the real projector and the real sync consumer, in this process, on one test file's
// database and topics, and the read-side calls the tests make through the gateway.
import { silentLogger } from '@holdfast/platform';
import type { TestEnv } from '@holdfast/testing';
import type { RunningConsumer } from '@holdfast/kafka';
import { ensureReadModelSchema, startProjector, type RunningProjector } from '@holdfast/projector';
import { startSyncConsumer } from '@holdfast/recompute';
import { call, type AccountFixture, type TestGateway } from './harness.js';

/** A row of GET /ingest/batches, as the tests read it. */
export interface BatchView {
  request_id: string | null;
  [k: string]: unknown;
}

/** GET /ingest/health and GET /ingest/batches as an account, through a running gateway. */
export function readSide(gw: () => TestGateway) {
  const get = (acc: AccountFixture, path: string) => call(gw().url, 'GET', path, { key: acc.key });
  return {
    get,
    health: async (acc: AccountFixture) => (await get(acc, '/ingest/health')).json as Record<string, unknown>,
    batchesOf: async (acc: AccountFixture, query = '') =>
      ((await get(acc, `/ingest/batches${query}`)).json as { batches: BatchView[] }).batches,
  };
}

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
      // `runProjector`'s group: its committed offsets tell a sync's barrier apart from markers.
      projectorGroupId: `${t.topicPrefix}projector`,
    },
    { pool: t.pool, kafka: t.kafka, codec: t.codec, now },
  );
}
