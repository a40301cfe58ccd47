import type { KafkaSecurityConfig, Logger } from '@holdfast/platform';
import { platformaticClient } from './platformatic-adapter.js';
import type { KafkaClient } from './ports.js';

/**
 * The Kafka client (@platformatic/kafka) behind the project's ports, whose own logs go through our logger
 * (errors and warnings only), over TLS and SASL when `security` says so (`readTransportConfig`).
 *
 * @example
 * const kafka = createKafka(config.kafkaBrokers, 'gateway', logger, config.kafkaSecurity);
 */
export function createKafka(
  brokers: readonly string[],
  clientId: string,
  logger: Logger,
  security?: KafkaSecurityConfig,
): KafkaClient {
  return platformaticClient(brokers, clientId, logger, security);
}
