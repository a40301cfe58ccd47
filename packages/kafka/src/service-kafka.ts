import { registryProbe, type InfraConfig, type ServiceContext } from '@holdfast/platform';
import { createKafka } from './client.js';
import type { KafkaClient } from './ports.js';
import { kafkaProbe } from './probes.js';

/** What a service needs to reach the log: the brokers and the schema registry. */
export type LogConnection = Pick<
  InfraConfig,
  'kafkaBrokers' | 'kafkaSecurity' | 'schemaRegistryUrl' | 'registryAuth'
>;

/**
 * A service's Kafka client, with the `kafka` and `registry` readiness checks and the probe's admin
 * client closed on stop.
 *
 * @example
 * const kafka = connectKafka(config.infra, 'holdfast-dispatcher', ctx);
 */
export function connectKafka(
  infra: LogConnection,
  clientId: string,
  ctx: Pick<ServiceContext, 'logger' | 'dependency'>,
): KafkaClient {
  const kafka = createKafka(infra.kafkaBrokers, clientId, ctx.logger, infra.kafkaSecurity);
  const kafkaReady = kafkaProbe(kafka);
  ctx.dependency('kafka', kafkaReady, () => kafkaReady.close());
  ctx.dependency('registry', registryProbe(infra.schemaRegistryUrl, infra.registryAuth));
  return kafka;
}
