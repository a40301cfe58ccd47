/**
 * The projector process: reads its configuration from the environment, starts its ops listener
 * (/healthz, /readyz, /metrics on PORT), waits for Kafka, the registry and PostgreSQL (with backoff:
 * a dependency that is not up yet is waited for, never a reason to exit), ensures topics and the
 * read-model schema, and folds the log into PostgreSQL; every 10 minutes it deletes what the spec's
 * retention rules expired (batch records past 90 days, pixel events past HOLDFAST_PIXEL_RETENTION_DAYS,
 * dead letters past HOLDFAST_DEAD_LETTER_RETENTION_DAYS); every second it runs queued erasures and
 * access-request exports (`startPrivacyWorker`: this process owns the read models an erasure blanks
 * and holds the privacy KEK). SIGTERM/SIGINT stop it cleanly (runService:
 * the current chunk commits or rolls back; nothing is lost either way). A consumer that crashes for
 * good (a bug) exits non-zero so the supervisor restarts it.
 */
import { createPool } from '@holdfast/postgres';
import { loadPrivacyKeyring, PgSubjectKeyStore } from '@holdfast/privacy';
import { startPrivacyWorker } from '@holdfast/privacy-requests';
import { connectKafka, registerConsumerLag, waitForLog } from '@holdfast/kafka';
import { loadOpsConfig, poolOptions, retryBudgetCounter, runService, waitFor } from '@holdfast/platform';
import { loadProjectorConfig } from './config.js';
import { ProjectorMetrics, selectProjections, startProjector, startRetention } from '@holdfast/projections';

const config = loadProjectorConfig(process.env);
const privacyKeyring = loadPrivacyKeyring(process.env);
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
            // Loaded at start: without HOLDFAST_PRIVACY_KEYS in production the process does not start.
            privacyKeyring,
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
    const privacyWorker = startPrivacyWorker({
      pool,
      schema: config.readSchema,
      keys: new PgSubjectKeyStore(pool, privacyKeyring),
      keyring: privacyKeyring,
      logger,
      intervalMs: config.privacyPollMs,
    });
    ctx.onStop('privacy-worker', () => privacyWorker.stop());
    registerConsumerLag(registry, [projector.lag]);
    metrics.watchDeadLetters(registry, pool, config.readSchema);
    readiness.add('consumer', () => projector.health.check(opsConfig.consumerStuckMs));
    return { crashed: projector.crashed };
  },
});
