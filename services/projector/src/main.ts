/**
 * The projector process: reads its configuration from the environment, starts its ops listener
 * (/healthz, /readyz, /metrics on PORT), waits for Kafka, the registry and PostgreSQL (with backoff:
 * a dependency that is not up yet is waited for, never a reason to exit), ensures topics and the
 * read-model schema, and folds the log into PostgreSQL; every 10 minutes it deletes what the spec's
 * retention rules expired (batch records past 90 days, pixel events past HOLDFAST_PIXEL_RETENTION_DAYS,
 * dead letters past HOLDFAST_DEAD_LETTER_RETENTION_DAYS). SIGTERM/SIGINT stop it cleanly (runService:
 * the current chunk commits or rolls back; nothing is lost either way). A consumer that crashes for
 * good (a bug) exits non-zero so the supervisor restarts it.
 */
import { createPool } from '@holdfast/db';
import { connectKafka, registerConsumerLag, waitForLog } from '@holdfast/kafka';
import { loadOpsConfig, poolOptions, retryBudgetCounter, runService, waitFor } from '@holdfast/platform';
import { loadProjectorConfig } from './config.js';
import { selectProjections } from './projections/index.js';
import { startRetention } from './retention.js';
import { ProjectorMetrics } from './runtime/metrics.js';
import { startProjector } from './runtime/start-projector.js';

const config = loadProjectorConfig(process.env);
const opsConfig = loadOpsConfig(process.env, 'PORT', 9464);

await runService({
  name: 'projector',
  ops: opsConfig,
  // A span per request whose records a chunk applied.
  tracing: true,
  start: async (ctx) => {
    const { logger, registry, readiness, wait } = ctx;
    const metrics = new ProjectorMetrics(registry);
    const pool = ctx.postgres(
      createPool(config.databaseUrl, 'holdfast-projector', 4, poolOptions(config, logger)),
    );
    const kafka = connectKafka(config, 'holdfast-projector', ctx);

    const codec = await waitForLog(kafka, config, wait, (p) => readiness.phase(p));
    readiness.phase('starting the consumer');
    const projector = await waitFor(
      'projector',
      () =>
        startProjector(
          {
            topicPrefix: config.topicPrefix,
            readSchema: config.readSchema,
            projections: config.projections,
            memoryBudget: config.memoryBudget,
            chunkSize: config.chunkSize,
            sessionTimeoutMs: config.sessionTimeoutMs,
            stallMs: opsConfig.consumerStallMs,
            retryBudget: opsConfig.retryBudget,
          },
          { pool, kafka, codec, logger, metrics, onRetryBudgetExhausted: retryBudgetCounter(registry) },
        ),
      wait,
    );
    ctx.onStop('projector', () => projector.stop());
    // After startProjector: the read-model schema exists.
    const retention = startRetention(selectProjections(config.projections), {
      pool,
      schema: config.readSchema,
      logger,
      intervalMs: config.retentionIntervalMs,
      retention: config.retention,
    });
    ctx.onStop('retention', () => retention.stop());
    registerConsumerLag(registry, [projector.lag]);
    metrics.watchDeadLetters(registry, pool, config.readSchema);
    readiness.add('consumer', () => projector.health.check(opsConfig.consumerStuckMs));
    return { crashed: projector.crashed };
  },
});
