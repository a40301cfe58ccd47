import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { batchBody, batches, splitByBytes, splitByRows, type Batch } from './batch.js';
import { Checkpoint, fingerprintFile, targetOf } from './checkpoint.js';
import { ID_FIELD, type BackfillKind } from './convert.js';
import { BackfillInterrupted, BackfillStop, Sender, type RetryCounters } from './http.js';
import { Progress } from './progress.js';
import { ErrorReport } from './report.js';
import {
  countsOf,
  describeRefusal,
  dryRunErrors,
  parseJson,
  rowsOf422,
  warningCodes,
  type RowReport,
} from './responses.js';
import { openSource, type SourceRow } from './source.js';
import { buildSummary, type BackfillSummary, type Tally } from './summary.js';

export interface BackfillOptions {
  readonly kind: BackfillKind;
  /** A path, or `-` for stdin. */
  readonly file: string;
  /** The gateway base address (…/ingest/<kind> is appended) or the full endpoint URL. */
  readonly url: string;
  readonly key: string;
  readonly concurrency: number;
  readonly dryRun: boolean;
  /** Checkpoint path; default `<file>.holdfast-progress.json` (none for stdin unless given). */
  readonly statePath?: string;
  /** Error report path; default `<file>.holdfast-errors.ndjson` (`holdfast-stdin…` for stdin). */
  readonly errorsPath?: string;
  readonly maxRows: number;
  readonly maxBytes: number;
  readonly retries: number;
  readonly retryBaseMs: number;
  readonly timeoutMs: number;
  readonly signal: AbortSignal;
  readonly stdin?: Readable;
  readonly stderr: (text: string) => void;
  readonly stderrIsTTY: boolean;
  readonly progressIntervalMs?: number;
}

/** The endpoint for a kind: a base address gets /ingest/<kind>; a full endpoint URL is kept. */
export function endpointUrl(url: string, kind: BackfillKind, dryRun: boolean): string {
  const u = new URL(url);
  if (!u.pathname.replace(/\/+$/, '').endsWith(`/ingest/${kind}`))
    u.pathname = `${u.pathname.replace(/\/+$/, '')}/ingest/${kind}`;
  if (dryRun) u.searchParams.set('dry_run', 'true');
  return u.toString();
}

/**
 * Streams a CSV or NDJSON file into POST /ingest/<kind>: pages of at most 5,000 rows and 32 MiB, sent by
 * `concurrency` workers; 429 waits, 413 splits, 5xx and network errors retried; per-row problems go
 * to an NDJSON report; acknowledged row ranges go to a checkpoint so a re-run resumes where it stopped.
 */
export async function runBackfill(o: BackfillOptions): Promise<BackfillSummary> {
  const started = Date.now();
  const source = await openSource(o.file, o.kind, o.stdin);
  const base = o.file === '-' ? 'holdfast-stdin' : o.file;
  const statePath = o.statePath ?? (o.file === '-' ? undefined : `${o.file}.holdfast-progress.json`);
  const checkpoint =
    statePath && !o.dryRun
      ? await Checkpoint.load(statePath, {
          kind: o.kind,
          source: o.file,
          fingerprint: o.file === '-' ? null : await fingerprintFile(o.file),
          target: targetOf(o.key),
        })
      : null;
  const report = new ErrorReport(
    o.errorsPath ?? `${base}.holdfast-errors.ndjson`,
    checkpoint?.resumed ?? false,
  );
  const counters: RetryCounters = {
    rateLimited: 0,
    serverErrors: 0,
    networkErrors: 0,
    requests: 0,
    latenciesMs: [],
  };
  const t: Tally = { rowsRead: 0, rowsSent: 0, rowsSkipped: 0, rowsDone: 0, accepted: 0, dropped: 0 };
  const splits = { bytes: 0, rows: 0 };
  const warnings: Record<string, number> = {};
  const progress = new Progress(
    o.stderr,
    o.stderrIsTTY,
    () => ({
      ...t,
      rows: t.rowsDone + t.rowsSkipped,
      bytesRead: source.bytesRead(),
      size: source.size,
      elapsedMs: Date.now() - started,
    }),
    o.progressIntervalMs,
  );
  const sender = new Sender({ ...o, counters, onRetry: (m) => progress.note(`backfill: ${m}`) });
  const url = endpointUrl(o.url, o.kind, o.dryRun);
  const runId = randomBytes(4).toString('hex');
  const reportRows = (rows: readonly RowReport[]) => rows.forEach((r) => report.write(r, ID_FIELD[o.kind]));

  const done = (b: Batch): void => {
    t.rowsDone += b.to - b.from + 1;
    checkpoint?.complete(b.from, b.to);
  };

  async function send(b: Batch): Promise<void> {
    if (!b.rows.length) return done(b);
    const res = await sender.post(url, batchBody(o.kind, b.rows), `backfill-${runId}-${b.from}-${b.to}`);
    const body = parseJson(res.text);
    if (res.status === 200 && body) {
      if (o.dryRun && Number(body.errors_truncated ?? 0) > 0 && b.rows.length > 1) {
        // The answer lists 50 errors at most: validate the halves until every error is listed.
        for (const half of splitByRows(b)) await send(half);
        return;
      }
      const c = countsOf(body, b.rows.length);
      t.accepted += c.accepted;
      t.dropped += c.dropped;
      t.rowsSent += b.rows.length;
      if (o.dryRun) reportRows(dryRunErrors(body, b));
      for (const code of warningCodes(body)) warnings[code] = (warnings[code] ?? 0) + 1;
      return done(b);
    }
    if (res.status === 413) {
      const plain = !res.contentType.includes('json');
      if (b.rows.length === 1) {
        if (!plain)
          throw new BackfillStop(`a single row was refused as too many rows: ${res.text.slice(0, 200)}`, 2);
        reportRows([{ ...b.rows[0]!, codes: ['row_too_large'] }]);
        return done(b);
      }
      splits[plain ? 'bytes' : 'rows'] += 1;
      for (const part of plain ? splitByBytes(b) : splitByRows(b)) await send(part);
      return;
    }
    const named = res.status === 422 ? rowsOf422(body, b, o.kind) : null;
    if (named && o.dryRun) {
      // A dry run goes on: report the rows the 422 names and validate the rest of the batch.
      reportRows(named);
      const bad = new Set(named.map((r) => r.row));
      return send({ ...b, rows: b.rows.filter((r) => !bad.has(r.row)) });
    }
    if (named) reportRows(named);
    const where = named?.length
      ? `; first rows: ${named
          .slice(0, 5)
          .map((r) => `line ${r.line} (${r.codes.join(', ')})`)
          .join('; ')}`
      : '';
    throw new BackfillStop(
      `the endpoint refused rows ${b.from}-${b.to}: ${describeRefusal(res.status, res.text)}${where}`,
      2,
    );
  }

  const onRowError = (r: SourceRow, codes: readonly string[]) =>
    report.write({ line: r.line, row: r.row, id: r.id, codes }, ID_FIELD[o.kind]);
  async function* counted(): AsyncGenerator<SourceRow> {
    for await (const r of source.rows()) {
      t.rowsRead += 1;
      yield r;
    }
  }
  const pages = batches(counted(), {
    kind: o.kind,
    maxRows: o.maxRows,
    maxBytes: o.maxBytes,
    isCompleted: (row) => checkpoint?.completed.has(row) ?? false,
    onRowError,
    onSkipped: () => (t.rowsSkipped += 1),
  });

  let stop = null as Error | null; // set by the workers (closures), so not narrowed to null here
  async function worker(): Promise<void> {
    while (!stop && !o.signal.aborted) {
      let next: IteratorResult<Batch>;
      try {
        next = await pages.next();
      } catch (err) {
        stop ??= err as Error;
        return;
      }
      if (next.done) return;
      try {
        await send(next.value);
      } catch (err) {
        stop ??= err as Error;
      }
    }
  }

  if (checkpoint?.resumed)
    progress.note(
      `backfill: resuming from ${checkpoint.path} (${checkpoint.completed.size()} rows already done)`,
    );
  progress.start();
  try {
    await Promise.all(Array.from({ length: o.concurrency }, worker));
  } finally {
    progress.stop();
    source.close();
    await sender.close();
    await report.close();
  }
  if (stop instanceof BackfillInterrupted) stop = null;
  const interrupted = !stop && o.signal.aborted;
  const completed = !stop && !interrupted;
  if (checkpoint) await (completed ? checkpoint.remove() : checkpoint.flush());
  return buildSummary({
    o,
    format: source.format,
    status: completed ? 'completed' : interrupted ? 'interrupted' : 'stopped',
    stop,
    tally: t,
    counters,
    splits,
    warnings,
    rowErrors: report.count,
    errorReport: report.path,
    checkpoint: completed ? null : (checkpoint?.path ?? null),
    durationMs: Date.now() - started,
  });
}
