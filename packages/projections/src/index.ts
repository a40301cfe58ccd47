/**
 * The projections and their engine (the projector service, services/projector, is its process
 * wiring): folds the event log into PostgreSQL read models with the spec's merge rules, exactly
 * once (checkpoints in the same transaction as the rows), isolating poison records into dead letters,
 * and rebuilding read models from offset 0 into a side schema that is switched in with one step.
 *
 * - The read models' DDL and table names are `@holdfast/read-models`'.
 * - `startProjector(config, deps)`: run in-process; services/projector/src/main.ts is the process entry.
 * - `rebuildReadModels(...)`: `holdfast replay`; `listDeadLetters`/`redriveDeadLetters`: `holdfast dlq`;
 *   `deleteDeadLettersForEvents`: what an erasure calls; `startRetention`: the retention pass.
 * - `wireProjections(options)`: one definition object per stream (`{ name, topic, handles, tables,
 *   apply }`), each with its own state and the runner options its wiring supplies (`lookahead`).
 */
export {
  startProjector,
  type ProjectorConfig,
  type ProjectorDeps,
  type RunningProjector,
} from './runtime/start-projector.js';
export { ProjectorMetrics } from './runtime/metrics.js';
export { connectProjectorDeps, type ConnectedDeps } from './runtime/connect-deps.js';
export {
  kafkaDeadLetterPublisher,
  type DeadLetter,
  type DeadLetterPublisher,
} from './runtime/dead-letters.js';
export { ProjectionRunner, type RunnerOptions } from './runtime/projection-runner.js';
export { DEFAULT_MEMORY_BUDGET } from './projections/commerce/identity-memory.js';
export {
  selectProjections,
  selectWiredProjections,
  wireProjections,
  type ProjectionsOptions,
} from './projections/index.js';
export { customerUuid } from './projections/commerce/customer-id.js';
export { rebuildReadModels, type RebuildOptions, type RebuildResult } from './replay/rebuild-read-models.js';
export type { RebuildProgress } from './replay/rebuild-tracker.js';
export { readModelDigest, type TableDigest } from './replay/table-digest.js';
export {
  deadLettersOfEvents,
  deleteDeadLettersForEvents,
  expireDeadLetters,
  listDeadLetters,
  redriveDeadLetters,
  type DeadLetterFilter,
  type DeadLetterRow,
  type StoredLetter,
} from './dlq/dead-letter-store.js';
export {
  applyRetention,
  retentionRules,
  startRetention,
  type Retention,
  type RetentionRule,
} from './retention.js';
export {
  PoisonRecordError,
  type AnyProjection,
  type ChunkLookahead,
  type Projection,
  type ProjectedEvent,
  type ProjectionTx,
  type WiredProjection,
} from './projection.js';
