import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Kysely } from 'kysely';
import { EventCodec } from '@holdfast/contracts';
import { createDb, createPool, migrateToLatest, type Database } from '@holdfast/postgres';
import { createKafka, ensureTopics, type KafkaClient } from '@holdfast/kafka';
import { silentLogger } from '@holdfast/platform';
import { Kafka, logLevel } from 'kafkajs';
import { ignoreKafkajsNegativeTimeoutWarning } from './kafkajs-timeout-warning.js';

/** One test file's private slice of the real stack: its own database and its own topic prefix. */
export interface TestEnv {
  readonly name: string;
  readonly databaseUrl: string;
  readonly pool: pg.Pool;
  readonly db: Kysely<Database>;
  /** The client under test behind the ports (@holdfast/kafka's one adapter). */
  readonly kafka: KafkaClient;
  /**
   * An independent kafkajs client the test checks the log with (raw reads, raw producers), so that
   * what the client under test wrote is verified by another implementation of the protocol.
   */
  readonly verifier: Kafka;
  readonly codec: EventCodec;
  readonly topicPrefix: string;
  readonly partitions: number;
  /** The environment a service process needs to join this slice. */
  readonly env: Record<string, string>;
  close(): Promise<void>;
}

function required(name: string): string {
  const v = process.env[name];
  if (!v)
    throw new Error(`${name} is not set: run integration tests through vitest's global setup (npm test)`);
  return v;
}

/**
 * Creates a fresh, migrated database and a topic prefix for one test file.
 * Creating a database costs tens of milliseconds; sharing one costs hours of debugging.
 *
 * @example
 * let t: TestEnv;
 * beforeAll(async () => (t = await createTestEnv('orders')));
 * afterAll(() => t.close());
 */
export async function createTestEnv(label: string, { partitions = 2 } = {}): Promise<TestEnv> {
  const runId = required('HOLDFAST_TEST_RUN');
  const base = required('DATABASE_URL');
  const suffix = randomBytes(3).toString('hex');
  const name = `hf_${runId}_${label
    .replace(/[^a-z0-9]/gi, '')
    .toLowerCase()
    .slice(0, 20)}_${suffix}`;
  // The run's migrated template (global setup) when there is one: a copy costs a fraction of
  // migrating afresh, which every test file did (~1 s each). migrateToLatest still runs on the copy:
  // it finds nothing to migrate and re-applies the grants, among them the one on the database itself
  // (a database-level grant is not copied with the template).
  const template = process.env.HOLDFAST_TEST_TEMPLATE_DB;
  await createDatabase(base, name, template);
  const url = new URL(base);
  url.pathname = `/${name}`;
  const databaseUrl = url.toString();
  const pool = createPool(databaseUrl, `test-${label}`);
  const db = createDb(pool);
  await migrateToLatest(db as Kysely<unknown>);
  const topicPrefix = `t${runId}-${suffix}-`;
  const brokers = required('KAFKA_BROKERS').split(',');
  const kafka = createKafka(brokers, `test-${label}`, silentLogger);
  ignoreKafkajsNegativeTimeoutWarning();
  const verifier = new Kafka({ clientId: `verify-${label}`, brokers, logLevel: logLevel.NOTHING });
  const ka = kafka.admin();
  await ka.connect();
  await ensureTopics(ka, topicPrefix, partitions);
  await ka.disconnect();
  const codec = await EventCodec.connect(required('SCHEMA_REGISTRY_URL'));
  return {
    name,
    databaseUrl,
    pool,
    db,
    kafka,
    verifier,
    codec,
    topicPrefix,
    partitions,
    env: {
      DATABASE_URL: databaseUrl,
      KAFKA_BROKERS: brokers.join(','),
      SCHEMA_REGISTRY_URL: required('SCHEMA_REGISTRY_URL'),
      HOLDFAST_TOPIC_PREFIX: topicPrefix,
      HOLDFAST_PARTITIONS: String(partitions),
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
      // The run's secrets, unsubscribe, inbound and privacy keys and outbound allow-list (global setup), so a CLI or service started with
      // this env seals and opens secrets like the test itself and may call its local receivers.
      ...Object.fromEntries(
        [
          'HOLDFAST_SECRETS_KEYS',
          'HOLDFAST_UNSUBSCRIBE_KEYS',
          'HOLDFAST_INBOUND_KEYS',
          'HOLDFAST_PRIVACY_KEYS',
          'HOLDFAST_OUTBOUND_ALLOW',
          'HOLDFAST_OUTBOUND_ALLOW_HTTP',
        ].flatMap((k) => (process.env[k] ? [[k, process.env[k]]] : [])),
      ),
      // Ops listeners (/healthz, /readyz, /metrics) on free ports: test processes run side by side.
      HOLDFAST_OPS_PORT: '0',
    },
    close: async () => {
      await db.destroy();
    },
  };
}

/** Creates database `name` on the server of `base`, as a copy of `template` when given. */
export async function createDatabase(base: string, name: string, template?: string): Promise<void> {
  const admin = new URL(base);
  admin.pathname = '/postgres';
  const c = new pg.Client({ connectionString: admin.toString() });
  await c.connect();
  try {
    await c.query(`create database "${name}"${template ? ` template "${template}"` : ''}`);
  } finally {
    await c.end();
  }
}

/**
 * Creates the run's template database and migrates it (global setup): each test file's database is
 * then a copy of it (`createTestEnv`). Nothing may stay connected to it, or a copy fails.
 */
export async function createMigratedTemplate(base: string, name: string): Promise<void> {
  await createDatabase(base, name);
  const url = new URL(base);
  url.pathname = `/${name}`;
  const pool = createPool(url.toString(), 'test-template', 1);
  try {
    await migrateToLatest(createDb(pool) as Kysely<unknown>);
  } finally {
    await pool.end();
  }
}
