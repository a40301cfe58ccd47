/**
 * The dispatcher process: reads its configuration from the environment, starts its ops listener
 * (/healthz, /readyz, /metrics on PORT), waits for Kafka, the registry and PostgreSQL (with backoff,
 * never exiting for a dependency that is not up yet), ensures topics, migrates schema `dispatcher`,
 * consumes holdfast.campaigns and delivers signed campaign.sent webhooks with the spec's retry
 * schedule. SIGTERM/SIGINT stop it cleanly (runService): an attempt in flight finishes and is
 * recorded, or (if killed) its claim expires and it is retried.
 */
import { createPool } from '@holdfast/postgres';
import { connectKafka, registerConsumerLag, waitForLog } from '@holdfast/kafka';
import { createOutboundClient, loadOpsConfig, poolOptions, runService, waitFor } from '@holdfast/platform';
import { loadDispatcherConfig } from './config.js';
import { DispatcherMetrics } from './metrics.js';
import { startDispatcher } from './start-dispatcher.js';

const config = loadDispatcherConfig(process.env);
const opsConfig = loadOpsConfig(process.env, 'PORT', 9466);
const { infra } = config;

await runService({
  name: 'dispatcher',
  ops: opsConfig,
  start: async (ctx) => {
    const { logger, registry, readiness, wait } = ctx;
    const metrics = new DispatcherMetrics(registry);
    const pool = ctx.postgres(
      createPool(infra.databaseUrl, 'holdfast-dispatcher', 4, poolOptions(infra, logger)),
    );
    metrics.watchBacklog(registry, pool);
    const kafka = connectKafka(infra, 'holdfast-dispatcher', ctx);

    const codec = await waitForLog(kafka, infra, wait, (p) => readiness.phase(p));
    readiness.phase('starting the consumer');
    const dispatcher = await waitFor(
      'dispatcher',
      () =>
        startDispatcher(
          {
            topicPrefix: infra.topicPrefix,
            pollIntervalMs: config.pollIntervalMs,
            batchSize: config.batchSize,
            maxInFlightPerSubscription: config.maxInFlightPerSubscription,
            timeoutMs: config.timeoutMs,
            stallMs: opsConfig.consumerStallMs,
          },
          {
            pool,
            kafka,
            codec,
            logger,
            metrics,
            outbound: createOutboundClient(config.outbound),
            keyring: config.keyring,
          },
        ),
      wait,
    );
    ctx.onStop('dispatcher', () => dispatcher.stop());
    registerConsumerLag(registry, [dispatcher.lag]);
    readiness
      .add('consumer', () => dispatcher.health.check(opsConfig.consumerStuckMs))
      .add('poller', () => dispatcher.pollerCheck());
    return { crashed: dispatcher.crashed };
  },
});
