import { randomUUID } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import type { BatchStatus } from '@holdfast/contracts';
import type { Appender, OutgoingRecord, SinglePartitionAppender } from '@holdfast/kafka';
import { HttpError, type Logger } from '@holdfast/platform';
import { principalOf } from '../auth/authenticate.js';
import type { Principal } from '../auth/resolve-principal.js';
import type { Clock } from '../clock.js';
import { ClientAbortedError, PayloadTooLargeError } from '../http/body-reader.js';
import type { GatewayMetrics } from '../metrics.js';
import {
  batchRecorded,
  batchStatusOf,
  EMPTY_BATCH_SUMMARY,
  issuesForRecord,
  type BatchOutcome,
  type BatchSummary,
} from './batch-record.js';
import type { EventFactory, RequestMeta } from './event-factory.js';
import { ValidationFailedError } from '../http/validation-failed.js';

/** The detail of a 500 whose append failed: nothing of the batch was written. */
export const APPEND_FAILED_DETAIL =
  'The batch could not be written and nothing of it was stored. Retry the same batch.';

/** One ingest call as a route handler sees it. `note` records facts known before a rejection. */
export interface IngestCall {
  readonly req: Request;
  readonly principal: Principal;
  readonly meta: RequestMeta;
  note(facts: Partial<Omit<BatchSummary, 'endpoint'>>): void;
}

/** What a route handler returns: the answer, the records to append with it, and the batch summary. */
export interface IngestResult {
  readonly body: unknown;
  readonly records: readonly OutgoingRecord[];
  readonly summary: Omit<BatchSummary, 'endpoint'>;
  readonly batchStatus?: BatchStatus;
  /**
   * The call's effect is already durable outside Kafka (a sync task and its command in the outbox,
   * which a relay appends later): a failed append is logged and the call still answered with `body`.
   */
  readonly durable?: boolean;
  /** After the append succeeded (e.g. the outbox row of a command it carried is deleted); best effort. */
  readonly onAppended?: () => Promise<void>;
}

export interface IngestRouteDeps {
  readonly appender: Appender;
  /**
   * Where a call that writes nothing but its own batch record (a rejection, a dry run, a failure)
   * appends that one record: one record is one partition, so one idempotent produce stores it whole
   * without a Kafka transaction (4 round trips). Defaults to `appender`.
   */
  readonly recordAppender?: SinglePartitionAppender;
  readonly events: EventFactory;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: GatewayMetrics;
}

const MAX_REQUEST_ID = 200;

function requestIdOf(req: Request): string | null {
  const v = req.get('x-request-id')?.trim();
  return v ? v.slice(0, MAX_REQUEST_ID) : null;
}

function rejection(err: unknown): { status: number; codes: string[]; errors: unknown[] } {
  if (err instanceof PayloadTooLargeError) return { status: 413, codes: ['payload_too_large'], errors: [] };
  if (err instanceof ValidationFailedError)
    return { status: 422, codes: ['validation_failed'], errors: issuesForRecord(err.issues) };
  if (err instanceof HttpError) return { status: err.status, codes: [], errors: [] };
  return { status: 500, codes: ['internal_error'], errors: [] };
}

/**
 * Wraps an ingest route so that every call is recorded (spec "Ingest batch record"): the handler's
 * records and the IngestBatchRecorded record are appended in ONE Kafka transaction (all visible or
 * none); a rejection (400, 413, 422) or failure (500) is recorded on its own (spec: the batches
 * listing shows rejected calls too), with one idempotent produce, not a transaction. Calls refused by a rate
 * limit (429) are not recorded: a flood must not turn into a flood of log writes.
 */
export function ingestRoute(
  deps: IngestRouteDeps,
  endpoint: string,
  handle: (call: IngestCall) => Promise<IngestResult>,
): RequestHandler {
  return async (req, res) => {
    const started = performance.now();
    const principal = principalOf(res);
    const meta: RequestMeta = {
      accountId: principal.accountId,
      batchId: randomUUID(),
      requestId: requestIdOf(req),
      keyId: principal.keyId,
      receivedAt: deps.clock.now(),
    };
    let noted: Partial<Omit<BatchSummary, 'endpoint'>> = {};
    const summaryOf = (over: Partial<Omit<BatchSummary, 'endpoint'>>): BatchSummary => ({
      endpoint,
      ...EMPTY_BATCH_SUMMARY,
      ...noted,
      ...over,
    });
    const record = (summary: BatchSummary, httpStatus: number, status = batchStatusOf(httpStatus)) => {
      const outcome: BatchOutcome = { status, httpStatus, durationMs: performance.now() - started };
      const value = batchRecorded(deps.events, meta, summary, outcome);
      // Ids, counts and codes only: never a row's content.
      deps.logger.info('ingest_batch', {
        endpoint,
        account_id: meta.accountId,
        batch_id: meta.batchId,
        request_id: meta.requestId,
        dry_run: value.dry_run,
        status: value.status,
        http_status: value.http_status,
        received: value.received,
        accepted: value.accepted,
        dropped: value.dropped,
        error_codes: value.error_codes,
        duration_ms: value.duration_ms,
      });
      return deps.events.record('holdfast.ingest-batches', 'IngestBatchRecorded', value);
    };
    // The record of a call that failed is best effort: the client's answer must not depend on it.
    const recordQuietly = async (summary: BatchSummary, httpStatus: number, status?: BatchStatus) => {
      try {
        await (deps.recordAppender ?? deps.appender).append([record(summary, httpStatus, status)]);
      } catch (err) {
        deps.logger.error('batch_record_failed', {
          endpoint,
          batch_id: meta.batchId,
          error: (err as Error).message,
        });
      }
    };

    let result: IngestResult;
    try {
      result = await handle({ req, principal, meta, note: (facts) => (noted = { ...noted, ...facts }) });
    } catch (err) {
      if (err instanceof ClientAbortedError) throw err;
      const r = rejection(err);
      // 429 and 503 (load shedding) are not recorded: a flood must not become a flood of log writes.
      if (r.status !== 429 && r.status !== 503) {
        const codes = noted.errorCodes?.length ? noted.errorCodes : r.codes;
        const errors = noted.errors?.length ? noted.errors : r.errors;
        await recordQuietly(summaryOf({ accepted: 0, errorCodes: codes, errors }), r.status);
      }
      throw err;
    }

    const summary = summaryOf(result.summary);
    try {
      // Nothing accepted (a dry run, rows all dropped): the batch record alone, without a transaction.
      if (result.records.length === 0)
        await (deps.recordAppender ?? deps.appender).append([record(summary, 200, result.batchStatus)]);
      else await deps.appender.append([...result.records, record(summary, 200, result.batchStatus)]);
    } catch (err) {
      deps.logger.error('append_failed', {
        endpoint,
        batch_id: meta.batchId,
        records: result.records.length + 1,
        error: (err as Error).message,
      });
      deps.metrics.appendFailures.inc({ endpoint });
      if (!result.durable) {
        await recordQuietly({ ...summary, accepted: 0, errorCodes: ['append_failed'] }, 500);
        throw new HttpError(500, APPEND_FAILED_DETAIL);
      }
      // Queued in PostgreSQL (the outbox relay appends the commands): the call did what it says.
      await recordQuietly(summary, 200, result.batchStatus);
      res.status(200).json(result.body);
      return;
    }
    await result
      .onAppended?.()
      .catch((err: unknown) =>
        deps.logger.error('append_followup_failed', { endpoint, error: (err as Error).message }),
      );
    deps.metrics.rows.inc({ endpoint, outcome: 'accepted' }, summary.dryRun ? 0 : summary.accepted);
    deps.metrics.rows.inc({ endpoint, outcome: 'dropped' }, summary.dryRun ? 0 : summary.dropped);
    res.status(200).json(result.body);
  };
}
