import type { RequestHandler } from 'express';
import type { CustomerUpserted } from '@holdfast/contracts';
import { classifyCustomers, validateCustomersRequest } from '@holdfast/domain';
import type { GatewayContext } from '../context.js';
import {
  customersDryRunResponse,
  customersRecordFacts,
  customersResponse,
} from '../ingest/customers-answer.js';
import { ingestRoute } from '../ingest/ingest-route.js';
import { readBatchRows } from '../ingest/row-count.js';

/**
 * POST /ingest/customers: the same pipeline as orders. A real call appends one CustomerUpserted per
 * row with an identity, and the batch record, in one Kafka transaction (stronger than the spec's
 * "earlier rows may stay committed": a failed batch leaves nothing).
 */
export function customersRoute(ctx: GatewayContext): RequestHandler {
  return ingestRoute(ctx, 'POST /ingest/customers', async (call) => {
    const { dryRun, rows } = await readBatchRows(call, 'customers', validateCustomersRequest);
    const c = classifyCustomers(rows, { suppressed: await ctx.suppressions.check(call.meta.accountId) });
    const summary = { ...customersRecordFacts(c), dryRun, syncTaskId: null };
    if (dryRun) return { body: customersDryRunResponse(c), records: [], summary };
    const values = c.customers.map((customer): CustomerUpserted => ({
      metadata: ctx.events.metadata(call.meta),
      customer,
      personal: null,
    }));
    const records = await ctx.events.commerceRecords(call.meta.accountId, 'CustomerUpserted', values);
    return { body: customersResponse(c), records, summary };
  });
}
