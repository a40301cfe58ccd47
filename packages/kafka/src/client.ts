import { Kafka, logLevel, type KafkaConfig, type LogEntry } from 'kafkajs';
import type { KafkaSecurityConfig, Logger } from '@holdfast/platform';

/** kafkajs's `ssl` and `sasl` options for a security config (nothing: plaintext, the local default). */
export function kafkaSecurityOptions(security: KafkaSecurityConfig = {}): Pick<KafkaConfig, 'ssl' | 'sasl'> {
  const { tls, sasl } = security;
  return {
    ...(tls && {
      // Certificates are always verified: a broker that cannot prove its name gets no password.
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

/**
 * A kafkajs client whose own logs go through our logger (errors and warnings only), over TLS and
 * SASL when `security` says so (`readTransportConfig`).
 *
 * @example
 * const kafka = createKafka(config.kafkaBrokers, 'gateway', logger, config.kafkaSecurity);
 */
export function createKafka(
  brokers: readonly string[],
  clientId: string,
  logger: Logger,
  security?: KafkaSecurityConfig,
): Kafka {
  return new Kafka({
    clientId,
    brokers: [...brokers],
    ...kafkaSecurityOptions(security),
    logLevel: logLevel.WARN,
    retry: { retries: 8, initialRetryTime: 200, maxRetryTime: 5_000 },
    logCreator:
      () =>
      ({ level, namespace, log }: LogEntry) => {
        const { message, error, broker } = log as { message: string; error?: unknown; broker?: unknown };
        // kafkajs warns about the default partitioner once per process: noise, not a problem.
        if (message.includes('KafkaJS v2.0.0 switched default partitioner')) return;
        // Our producers are transactional: a send that runs out of retries aborts its transaction,
        // so nothing half-written becomes visible; the warning does not apply.
        if (message.includes('Limiting retries for the idempotent producer')) return;
        const ctx = { namespace, message, error, broker };
        if (level <= logLevel.ERROR) logger.error('kafka_client', ctx);
        else logger.warn('kafka_client', ctx);
      },
  });
}
