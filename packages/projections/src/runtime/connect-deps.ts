import { EventCodec } from '@holdfast/contracts';
import type { Pool } from '@holdfast/postgres';
import { createKafka, ensureTopicsOf, TransactionalAppender } from '@holdfast/kafka';
import type { InfraConfig, Logger } from '@holdfast/platform';
import type { ProjectorDeps } from './start-projector.js';

/** Projector dependencies for a one-off tool (the CLI's replay and dlq commands), with their cleanup. */
export interface ConnectedDeps {
  readonly deps: ProjectorDeps;
  /** A producer for re-driving dead letters (created on first use). */
  appender(): Promise<TransactionalAppender>;
  close(): Promise<void>;
}

/**
 * Connects Kafka (topics ensured) and the registry codec around a caller's pool.
 *
 * @example
 * const c = await connectProjectorDeps(ctx.config(), ctx.pool(), ctx.logger(), 'holdfast-cli');
 * try { await rebuildReadModels(opts, c.deps); } finally { await c.close(); }
 */
export async function connectProjectorDeps(
  config: InfraConfig,
  pool: Pool,
  logger: Logger,
  clientId: string,
): Promise<ConnectedDeps> {
  const kafka = createKafka(config.kafkaBrokers, clientId, logger, config.kafkaSecurity);
  await ensureTopicsOf(kafka, config);
  const codec = await EventCodec.connect(config.schemaRegistryUrl, { auth: config.registryAuth });
  let appender: Promise<TransactionalAppender> | undefined;
  return {
    deps: { pool, kafka, codec, logger },
    appender: () =>
      (appender ??= TransactionalAppender.create(kafka, {
        name: `${config.topicPrefix}${clientId}`,
        size: 1,
      })),
    close: async () => {
      if (appender) await (await appender).close();
    },
  };
}
