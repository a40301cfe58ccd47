/**
 * The recompute service: the sync-command consumer that records POST /ingest/sync and nightly tasks
 * and the task worker that runs them once the read models have passed their barrier
 * (queued → running → done | failed | skipped), customer scoring into analytics.customer_scores, and
 * the nightly schedule (02:00 UTC). Details: docs/analytics.md ("The recompute service").
 *
 * @example
 * await migrateAnalytics(db); // @holdfast/migrations
 * const consumer = await startSyncConsumer(config, {
 *   pool, kafka, codec, recompute: scoreTaskAccount({ pool, readModelSchema: 'read_models' }),
 * });
 * const nightly = scheduleNightly({
 *   run: (at) => enqueueNightly({ pool, appender, codec, topicPrefix, positions: LogPositions.create(kafka, topicPrefix) }, at),
 * });
 */
export { startSyncConsumer, type SyncConsumerConfig, type SyncConsumerDeps } from './sync-consumer.js';
export {
  RECOMPUTE_SCHEMA,
  type ScoredSnapshot,
  type SyncTaskRef,
  type TaskCounts,
} from './sync-task-store.js';
export {
  DEFAULT_WORKER_SETTINGS,
  isTransient,
  type RecomputeTask,
  type TaskWorkerSettings,
} from './task-worker.js';
export { projectorPassed, type BarrierState, type ProjectorPosition } from './read-barrier.js';
export {
  createCampaignStep,
  planAudiences,
  refreshFunnelCounts,
  type CampaignStepConfig,
  type CampaignStepDeps,
  type CampaignStepResult,
} from './campaigns/index.js';
export { computeLiftReports, recomputeAttributions } from './attribution/index.js';
export { refreshCohortActivity } from './scoring/cohort-activity.js';
export { countScoreBins, refreshScoreBins, type ScoreBinRow } from './scoring/score-bins.js';
export {
  DEFAULT_SCORING,
  recomputeAccount,
  scoreTaskAccount,
  type RecomputeDeps,
  type RecomputeOutcome,
  type ScoringSettings,
} from './scoring/recompute-account.js';
export {
  NIGHTLY_CRON,
  NIGHTLY_TIMEZONE,
  nodeCronScheduler,
  scheduleNightly,
  type NightlyDeps,
  type ScheduledJob,
  type Scheduler,
} from './nightly/nightly-schedule.js';
export {
  enqueueNightly,
  nightlyTaskId,
  type EnqueueNightlyDeps,
  type NightlyEnqueued,
} from './nightly/enqueue-nightly.js';
