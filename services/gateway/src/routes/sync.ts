import type { RequestHandler } from 'express';
import type { SyncRequested } from '@holdfast/contracts';
import { findSyncTask, markSyncCommandsSent, queueThrottledSyncTask } from '@holdfast/control-plane';
import type { OutgoingRecord } from '@holdfast/kafka';
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
 * POST /ingest/sync: at most one per 10 minutes per account (else 429 with Retry-After). In ONE
 * PostgreSQL transaction (`queueThrottledSyncTask`): the throttle check, the barrier (the high
 * watermark of the account's partition of holdfast.commerce: every ingest call answered before this
 * request lies below it), and the control.sync_tasks row (queued) with its SyncRequested command in
 * the outbox. If the position cannot be read, nothing is queued (503, the throttle not spent). Then
 * the command is appended with the batch record (status queued) in one Kafka transaction and its
 * outbox row deleted; if that append fails the task is queued all the same (the outbox relay appends
 * its command once Kafka answers), so the answer is the same. The recompute scores only once the
 * projector has passed the barrier.
 */
export function syncRoute(ctx: GatewayContext): RequestHandler {
  return ingestRoute(ctx, 'POST /ingest/sync', async (call) => {
    // The command, encoded once: kept in the outbox and appended now with the batch record.
    const made: { command?: OutgoingRecord } = {};
    const q = await queueThrottledSyncTask(
      ctx.db,
      call.meta.accountId,
      call.meta.receivedAt,
      LIMITS.syncIntervalMs,
      async (taskId) => {
        let barrier;
        try {
          barrier = await ctx.logPositions.ofKey('holdfast.commerce', call.meta.accountId);
        } catch (err) {
          // Thrown inside the transaction: the task is not inserted, the throttle not spent.
          ctx.logger.error('sync_barrier_unavailable', { error: (err as Error).message });
          throw new HttpError(503, SYNC_LOG_UNREACHABLE, { 'Retry-After': '5' });
        }
        const value: SyncRequested = {
          metadata: ctx.events.metadata(call.meta),
          task_id: taskId,
          trigger: 'api',
          barrier: [barrier],
        };
        made.command = ctx.events.record('holdfast.sync-commands', 'SyncRequested', value);
        return made.command.value;
      },
    );
    if (!q.queued) throw new RateLimitedError(q.retryAfterSeconds);
    const taskId = q.taskId;
    return {
      body: {
        queued: true,
        task_id: taskId,
        status_url: `/ingest/sync/${taskId}`,
        message: SYNC_QUEUED_MESSAGE,
      },
      records: [made.command!],
      summary: { ...EMPTY_BATCH_SUMMARY, syncTaskId: taskId },
      batchStatus: 'queued',
      durable: true,
      onAppended: () => markSyncCommandsSent(ctx.db, [taskId]),
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
