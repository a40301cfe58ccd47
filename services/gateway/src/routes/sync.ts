import type { RequestHandler } from 'express';
import type { LogPosition, SyncRequested } from '@holdfast/contracts';
import { abandonSyncTasks, findSyncTask, queueThrottledSyncTask } from '@holdfast/db';
import { syncTaskView } from '@holdfast/domain';
import { HttpError, NotFoundError, RateLimitedError } from '@holdfast/platform';
import { principalOf } from '../auth/authenticate.js';
import type { GatewayContext } from '../context.js';
import { EMPTY_BATCH_SUMMARY } from '../ingest/batch-record.js';
import { ingestRoute } from '../ingest/ingest-route.js';
import { LIMITS } from '../limits/policy.js';

export const SYNC_QUEUED_MESSAGE =
  'Recompute queued. Poll status_url until status is done, failed or skipped. The nightly recompute at 02:00 UTC runs regardless.';

export const SYNC_TASK_NOT_FOUND = 'Sync task not found.';

/** The detail of a 503 when the log's position could not be read: nothing was queued. */
export const SYNC_LOG_UNREACHABLE =
  'The event log could not be reached, so no recompute was queued. Retry shortly.';

/**
 * POST /ingest/sync: at most one per 10 minutes per account (else 429 with Retry-After). Inserts the
 * control.sync_tasks row (queued), reads the barrier (the high watermark of the account's partition
 * of holdfast.commerce: every ingest call answered before this request lies below it), then appends
 * SyncRequested carrying it, with the batch record (status queued), in one transaction. The recompute
 * scores only once the projector has passed the barrier. If the position cannot be read (503) or the
 * append fails (500) the task is abandoned (failed, `append_failed`: `abandonSyncTasks`, the one
 * compensation of every sync queue), so no task is left that nobody will run and the throttle, which
 * does not count abandoned tasks, is not spent.
 */
export function syncRoute(ctx: GatewayContext): RequestHandler {
  return ingestRoute(ctx, 'POST /ingest/sync', async (call) => {
    const q = await queueThrottledSyncTask(
      ctx.db,
      call.meta.accountId,
      call.meta.receivedAt,
      LIMITS.syncIntervalMs,
    );
    if (!q.queued) throw new RateLimitedError(q.retryAfterSeconds);
    let barrier: LogPosition;
    try {
      barrier = await ctx.logPositions.ofKey('holdfast.commerce', call.meta.accountId);
    } catch (err) {
      ctx.logger.error('sync_barrier_unavailable', { task_id: q.taskId, error: (err as Error).message });
      await abandonSyncTasks(ctx.db, [q.taskId]);
      throw new HttpError(503, SYNC_LOG_UNREACHABLE, { 'Retry-After': '5' });
    }
    const value: SyncRequested = {
      metadata: ctx.events.metadata(call.meta),
      task_id: q.taskId,
      trigger: 'api',
      barrier: [barrier],
    };
    return {
      body: {
        queued: true,
        task_id: q.taskId,
        status_url: `/ingest/sync/${q.taskId}`,
        message: SYNC_QUEUED_MESSAGE,
      },
      records: [ctx.events.record('holdfast.sync-commands', 'SyncRequested', value)],
      summary: { ...EMPTY_BATCH_SUMMARY, syncTaskId: q.taskId },
      batchStatus: 'queued',
      onAppendFailed: () => abandonSyncTasks(ctx.db, [q.taskId]),
    };
  });
}

/**
 * GET /ingest/sync/{task_id}: the task of THIS account only (another account's, an unknown or a
 * non-UUID id → 404). Counters only when done; reason only when skipped or failed.
 */
export function syncStatusRoute(ctx: GatewayContext): RequestHandler {
  return async (req, res) => {
    const taskId = String(req.params.task_id);
    const task = await findSyncTask(ctx.db, principalOf(res).accountId, taskId);
    if (!task) throw new NotFoundError(SYNC_TASK_NOT_FOUND);
    res.json(
      syncTaskView({
        id: task.id,
        status: task.status,
        queuedAt: task.queued_at,
        ordersAdded: task.orders_added,
        customersAdded: task.customers_added,
        durationMs: task.duration_ms,
        reason: task.reason,
      }),
    );
  };
}
