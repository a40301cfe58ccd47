import type { RequestHandler } from 'express';
import type { OrderUpserted } from '@holdfast/contracts';
import { classifyOrders, validateOrdersRequest } from '@holdfast/domain';
import type { GatewayContext } from '../context.js';
import { ingestRoute } from '../ingest/ingest-route.js';
import {
  currencyIssues,
  ordersDryRunResponse,
  ordersRecordFacts,
  ordersResponse,
} from '../ingest/orders-answer.js';
import { readBatchRows } from '../ingest/row-count.js';
import { ValidationFailedError } from '../http/validation-failed.js';

/**
 * POST /ingest/orders. Body bytes (plain-text 413) → JSON → row count (400 / JSON 413) → schema
 * (422) → classification, the same pure function for the dry run and the real call. A real call
 * appends one OrderUpserted per accepted order and the batch record in one Kafka transaction.
 */
export function ordersRoute(ctx: GatewayContext): RequestHandler {
  return ingestRoute(ctx, 'POST /ingest/orders', async (call) => {
    const { dryRun, rows } = await readBatchRows(call, 'orders', validateOrdersRequest);
    const suppressed = await ctx.suppressions.check(call.meta.accountId);
    const c = classifyOrders(rows, { now: call.meta.receivedAt, suppressed });
    const facts = ordersRecordFacts(c);
    const counts = {
      received: c.counters.received,
      dropped: c.counters.dropped_invalid + c.counters.dropped_suppressed,
    };

    if (dryRun) {
      const answer = ordersDryRunResponse(c);
      return {
        body: answer,
        records: [],
        summary: { ...facts, ...counts, dryRun, accepted: answer.would_accept, syncTaskId: null },
      };
    }
    if (c.batchFailure) {
      call.note({ ...facts, dropped: c.counters.received });
      throw new ValidationFailedError(currencyIssues(rows, c.batchFailure.indexes));
    }
    const values = c.accepted.map((order): OrderUpserted => ({
      metadata: ctx.events.metadata(call.meta),
      order,
      personal: null,
    }));
    const records = await ctx.events.commerceRecords(call.meta.accountId, 'OrderUpserted', values);
    return {
      body: ordersResponse(c),
      records,
      summary: { ...facts, ...counts, dryRun, accepted: c.counters.accepted, syncTaskId: null },
    };
  });
}
