import { randomUUID } from 'node:crypto';
import { inTransaction, rawQuery, type PoolClient } from '@holdfast/postgres';
import { topicName } from '@holdfast/kafka';
import { selectProjections } from '../projections/index.js';
import { DEFAULT_RETENTION } from '@holdfast/platform';
import {
  assertSchemaName,
  createDeferredIndexes,
  ensureReadModelSchema,
  type RebuildOptions,
  type RebuildProgress,
  type RebuildResult,
} from '@holdfast/read-models';
import { startProjector, type ProjectorDeps } from '../runtime/start-projector.js';
import { applyRetention, retentionRules } from '../retention.js';
import { RebuildTracker } from './rebuild-tracker.js';
import { lockLiveSchema, moveTables } from './switch-tables.js';

export type { RebuildOptions, RebuildResult };

/**
 * Rebuilds read models from offset 0 while the live ones keep serving.
 *
 * 1. Creates `<schema>_next` and folds every topic of the chosen projections into it with a fresh
 *    consumer group, up to the high watermarks taken at the start (bulk), then again up to newer ones
 *    until what remains is small (catch-up).
 * 2. Takes the live schema's switch lock, which pauses the live projector between two chunks, catches
 *    up to the high watermarks taken under the lock (final), and moves the rebuilt tables in, in that
 *    same transaction. The rebuilt checkpoints are then at or past everything the live projector had
 *    applied, so it resumes without a gap; should it ever find one, it rewinds (SeekGuard).
 *
 * Between the two, the retention rules (`retentionRules`: batch records, pixel events, dead letters)
 * are applied to `<schema>_next` at `opts.now` with `opts.retention`: the log keeps every record, so a
 * replay folds back what the live tables had expired, and this cut removes it again before anyone can
 * read it. The fold itself stays free of any clock (deterministic); the cut is the same pure horizon
 * (`keptSince`) the live retention pass uses. Records folded by the final catch-up are newer than the
 * cut (received minutes ago), so applying it before that catch-up is the same as after it.
 *
 * @example
 * await rebuildReadModels({ topicPrefix: '', readSchema: 'read_models', onProgress: console.log }, deps);
 */
export async function rebuildReadModels(opts: RebuildOptions, deps: ProjectorDeps): Promise<RebuildResult> {
  const started = Date.now();
  const live = assertSchemaName(opts.readSchema);
  selectProjections(opts.projections); // unknown names fail before anything is touched
  // One rebuild per live schema at a time: a second one would drop the first one's `_next` under it.
  const session = await deps.pool.connect();
  const lockKey = `holdfast.rebuild:${live}`;
  const { rows } = await rawQuery<{ ok: boolean }>(
    session,
    'rebuild-read-models.try-lock',
    `select pg_try_advisory_lock(hashtext($1)) as ok`,
    [lockKey],
  );
  if (!rows[0]!.ok) {
    session.release();
    throw new Error(`a rebuild of ${live} is already running`);
  }
  try {
    return await rebuild(opts, deps, session, started);
  } finally {
    await rawQuery(session, 'rebuild-read-models.unlock', `select pg_advisory_unlock(hashtext($1))`, [
      lockKey,
    ]).catch(() => {});
    session.release();
  }
}

async function rebuild(
  opts: RebuildOptions,
  deps: ProjectorDeps,
  client: PoolClient,
  started: number,
): Promise<RebuildResult> {
  const projections = selectProjections(opts.projections);
  const names = projections.map((p) => p.name);
  const live = opts.readSchema;
  const next = assertSchemaName(`${live}_next`);
  await ensureReadModelSchema(deps.pool, live);
  // A previous rebuild that died half-way leaves its schema behind: start from nothing.
  await rawQuery(
    deps.pool,
    'rebuild-read-models.drop-next-schema',
    `drop schema if exists "${next}" cascade`,
  );
  // Without the indexes only readers use: they are built once the bulk of the log is folded.
  await ensureReadModelSchema(deps.pool, next, { deferIndexes: true });

  const topics = [...new Set(projections.map((p) => topicName(opts.topicPrefix, p.topic)))];
  const tracker = new RebuildTracker(deps.kafka, topics);
  const stamp = (opts.now?.() ?? new Date()).toISOString().replace(/\D/g, '').slice(0, 14);
  const projector = await startProjector(
    {
      topicPrefix: opts.topicPrefix,
      readSchema: next,
      projections: names,
      chunkSize: opts.chunkSize,
      // Never reuse a group: one left behind (deletion is best effort) would resume mid-log.
      groupId: `${opts.topicPrefix}holdfast.projector.rebuild.${stamp}.${randomUUID().slice(0, 8)}`,
      onOutcome: tracker.onOutcome,
      // Nobody switches tables under a rebuild.
      checkpointWatchMs: 0,
      deferIndexes: true,
      onConsumer: (consumer) => tracker.attach(consumer),
    },
    deps,
  );
  const wait = (phase: RebuildProgress['phase'], targets: ReadonlyMap<string, number>) =>
    tracker.waitFor(phase, targets, projector.crashed, opts.onProgress);
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await projector.stop();
    await deleteGroup(deps, projector.groupId);
  };
  try {
    await wait('bulk', await tracker.highWatermarks());
    await createDeferredIndexes(deps.pool, next);
    for (let round = 0; round < 10; round++) {
      const targets = await tracker.highWatermarks();
      if (tracker.remaining(targets) <= (opts.pauseBelow ?? 20_000)) break;
      await wait('catch-up', targets);
    }
    const cut = await applyRetention(
      retentionRules(projections),
      deps.pool,
      next,
      opts.now?.() ?? new Date(),
      opts.retention ?? DEFAULT_RETENTION,
    );
    deps.logger.info('rebuild_retention_applied', { schema: next, rows: cut });
    if (opts.noSwitch) {
      await stop();
      return { projections: names, nextSchema: next, elapsedMs: Date.now() - started };
    }
    const { oldSchema } = await inTransaction(client, async () => {
      await lockLiveSchema(client, live);
      await wait('final', await tracker.highWatermarks());
      await stop();
      return moveTables(client, live, next, projections, stamp);
    });
    deps.logger.info('read_models_switched', { live, oldSchema, projections: names });
    return { projections: names, nextSchema: next, oldSchema, elapsedMs: Date.now() - started };
  } finally {
    await stop();
  }
}

async function deleteGroup(deps: ProjectorDeps, groupId: string): Promise<void> {
  const admin = deps.kafka.admin();
  await admin.connect();
  // The group only held the rebuild's position; leaving it behind would clutter the broker.
  await admin.deleteGroups([groupId]).catch(() => {});
  await admin.disconnect();
}
