import { Kafka, logLevel, type LogEntry } from 'kafkajs';
import type { Logger } from '@holdfast/platform';

/** A kafkajs client whose own logs go through our logger (errors and warnings only). */
export function createKafka(brokers: readonly string[], clientId: string, logger: Logger): Kafka {
  return new Kafka({
    clientId,
    brokers: [...brokers],
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
