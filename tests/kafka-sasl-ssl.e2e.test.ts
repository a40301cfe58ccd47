import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kafka, logLevel, type KafkaConfig, type KafkaMessage } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKafka, ensureTopics, topicName } from '@holdfast/kafka';
import {
  EnvReader,
  readTransportConfig,
  silentLogger,
  type KafkaSecurityConfig,
  type TransportConfig,
} from '@holdfast/platform';
import { startSaslSslKafka, type SaslSslKafka } from '../infra/lib/kafka-sasl-ssl.mjs';

// A private broker (ports 19510/19511) whose only client listener is SASL_SSL with SCRAM-SHA-512, its
// CA and certificate made by this test: the client settings are read from the environment exactly as
// a service reads them, and the produce/consume path is the real one (transaction, read_committed).
const PORT = 19510;
const CONTROLLER_PORT = 19511;
let broker: SaslSslKafka;
let dir: string;

function transport(env: Record<string, string>): TransportConfig {
  const r = new EnvReader(env);
  return r.done(readTransportConfig(r));
}

/** The independent kafkajs verifier's `ssl` and `sasl` options for a security config. */
function kafkaSecurityOptions(security: KafkaSecurityConfig = {}): Pick<KafkaConfig, 'ssl' | 'sasl'> {
  const { tls, sasl } = security;
  return {
    ...(tls && {
      ssl: {
        rejectUnauthorized: true,
        ...(tls.ca !== undefined && { ca: [tls.ca] }),
        ...(tls.cert !== undefined && { cert: tls.cert }),
        ...(tls.key !== undefined && { key: tls.key }),
        ...(tls.servername !== undefined && { servername: tls.servername }),
      },
    }),
    ...(sasl && { sasl: { mechanism: sasl.mechanism, username: sasl.username, password: sasl.password } }),
  } as Pick<KafkaConfig, 'ssl' | 'sasl'>;
}

/** Every message of an error and of its causes (a client wraps the broker's answer in its own errors). */
function messages(e: unknown, seen = new Set<unknown>()): string[] {
  if (!e || typeof e !== 'object' || seen.has(e)) return [];
  seen.add(e);
  const o = e as { message?: unknown; cause?: unknown; errors?: unknown };
  return [
    ...(typeof o.message === 'string' ? [o.message] : []),
    ...messages(o.cause, seen),
    ...(Array.isArray(o.errors) ? o.errors.flatMap((x) => messages(x, seen)) : []),
  ];
}

function envFor(password: { value?: string; file?: string }): Record<string, string> {
  return {
    HOLDFAST_KAFKA_SASL_MECHANISM: 'SCRAM-SHA-512',
    HOLDFAST_KAFKA_SASL_USERNAME: 'holdfast',
    ...(password.value !== undefined && { HOLDFAST_KAFKA_SASL_PASSWORD: password.value }),
    ...(password.file !== undefined && { HOLDFAST_KAFKA_SASL_PASSWORD_FILE: password.file }),
    HOLDFAST_KAFKA_TLS_CA_FILE: broker.caFile,
  };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'holdfast-sasl-ssl-'));
  broker = await startSaslSslKafka({
    dir,
    port: PORT,
    controllerPort: CONTROLLER_PORT,
    users: { holdfast: 'right-secret' },
  });
}, 120_000);

afterAll(async () => {
  await broker?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('Kafka over SASL_SSL (SCRAM-SHA-512, TLS verified against our CA)', () => {
  it('creates topics, commits one transaction and aborts another; a read_committed consumer sees only the committed records', async () => {
    // The password from a file, as a container secret provides it (trailing newline and all).
    writeFileSync(join(dir, 'kafka-password'), 'right-secret\n');
    const config = transport(envFor({ file: join(dir, 'kafka-password') }));
    expect(config.kafkaSecurity?.sasl?.mechanism).toBe('scram-sha-512');
    const kafka = createKafka([broker.brokers], 'sasl-ssl-test', silentLogger, config.kafkaSecurity);
    const admin = kafka.admin();
    await admin.connect();
    await ensureTopics(admin, 'e2e-', 2, config.topicReplication);
    const topic = topicName('e2e-', 'holdfast.commerce');
    await admin.disconnect();
    // An independent kafkajs client over the same TLS and SASL settings checks what the ports did.
    const verifier = new Kafka({
      brokers: [broker.brokers],
      logLevel: logLevel.NOTHING,
      ...kafkaSecurityOptions(config.kafkaSecurity),
    });
    const va = verifier.admin();
    await va.connect();
    const described = await va.describeConfigs({
      resources: [{ type: 2 /* TOPIC */, name: topic, configNames: ['min.insync.replicas', 'retention.ms'] }],
      includeSynonyms: false,
    });
    const entries = Object.fromEntries(
      described.resources[0]!.configEntries.map((e) => [e.configName, e.configValue]),
    );
    expect(entries).toEqual({ 'min.insync.replicas': '1', 'retention.ms': '-1' });
    await va.disconnect();

    const producer = await kafka.transactionalProducer({
      transactionalId: 'sasl-ssl-test',
      transactionTimeoutMs: 60_000,
    });
    const committed = await producer.transaction();
    await committed.send([{ topic, key: 'acct', value: Buffer.from('committed') }], 30_000);
    await committed.commit();
    const aborted = await producer.transaction();
    await aborted.send([{ topic, key: 'acct', value: Buffer.from('aborted') }], 30_000);
    await aborted.abort();
    const last = await producer.transaction();
    await last.send([{ topic, key: 'acct', value: Buffer.from('last') }], 30_000);
    await last.commit();
    await producer.close();

    const consumer = verifier.consumer({ groupId: 'sasl-ssl-test', readUncommitted: false });
    const seen: string[] = [];
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    const done = new Promise<void>((resolve) => {
      void consumer.run({
        eachMessage: async ({ message }: { message: KafkaMessage }) => {
          seen.push(message.value!.toString());
          if (message.value!.toString() === 'last') resolve();
          return Promise.resolve();
        },
      });
    });
    await done;
    await consumer.disconnect();
    expect(seen).toEqual(['committed', 'last']);
  });

  it('a wrong password is refused with an authentication error (not retried)', async () => {
    const config = transport(envFor({ value: 'wrong-secret' }));
    const admin = createKafka([broker.brokers], 'sasl-ssl-wrong', silentLogger, config.kafkaSecurity).admin();
    const started = Date.now();
    const err = await admin.connect().then(
      () => null,
      (e: Error) => e,
    );
    await admin.disconnect().catch(() => {});
    expect(err).not.toBeNull();
    expect(messages(err).join(' | ')).toMatch(/authentication failed/i);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('a broker whose certificate is not signed by a trusted CA gets no password', async () => {
    // The system's CAs do not know our test CA: the TLS handshake fails before SASL starts.
    const config = transport({
      ...envFor({ value: 'right-secret' }),
      HOLDFAST_KAFKA_TLS_CA_FILE: '',
      HOLDFAST_KAFKA_TLS: 'true',
    });
    expect(config.kafkaSecurity?.tls?.ca).toBeUndefined();
    const admin = createKafka(
      [broker.brokers],
      'sasl-ssl-untrusted',
      silentLogger,
      config.kafkaSecurity,
    ).admin({
      retries: 0,
    });
    const err = await admin.connect().then(
      () => null,
      (e: Error) => e,
    );
    await admin.disconnect().catch(() => {});
    expect(messages(err).join(' | ')).toMatch(/self[- ]signed certificate/);
  });

  it('a plaintext client cannot talk to the SASL_SSL listener', async () => {
    const kafka = new Kafka({
      brokers: [broker.brokers],
      logLevel: logLevel.NOTHING,
      retry: { retries: 0 },
      connectionTimeout: 2000,
      requestTimeout: 3000,
    });
    const admin = kafka.admin();
    await expect(admin.connect().then(() => admin.describeCluster())).rejects.toThrow();
    await admin.disconnect().catch(() => {});
  });
});
