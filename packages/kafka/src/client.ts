import type { KafkaSecurityConfig, Logger } from '@holdfast/platform';
import { kafkajsClient } from './kafkajs-adapter.js';
import { platformaticClient } from './platformatic-adapter.js';
import type { KafkaClient, KafkaClientKind } from './ports.js';

/**
 * The Kafka client of `kind` behind the project's ports, whose own logs go through our logger
 * (errors and warnings only), over TLS and SASL when `security` says so (`readTransportConfig`).
 *
 * @example
 * const kafka = createKafka(config.kafkaBrokers, 'gateway', logger, config.kafkaSecurity, config.kafkaClient);
 */
export function createKafka(
  brokers: readonly string[],
  clientId: string,
  logger: Logger,
  security?: KafkaSecurityConfig,
  kind: KafkaClientKind = 'kafkajs',
): KafkaClient {
  return kind === 'platformatic'
    ? platformaticClient(brokers, clientId, logger, security)
    : kafkajsClient(brokers, clientId, logger, security);
}
