import { BackfillStop, type RetryCounters } from './http.js';
import { SourceError, type SourceFormat } from './source.js';

/** Running totals of a backfill. */
export interface Tally {
  rowsRead: number;
  rowsSent: number;
  rowsSkipped: number;
  rowsDone: number;
  accepted: number;
  dropped: number;
}

/** What `holdfast backfill` prints at the end (as JSON with --json). */
export interface BackfillSummary {
  readonly status: 'completed' | 'stopped' | 'interrupted';
  readonly exit_code: 0 | 1 | 2;
  readonly message: string | null;
  readonly kind: string;
  readonly file: string;
  readonly format: SourceFormat;
  readonly dry_run: boolean;
  readonly rows_read: number;
  readonly rows_sent: number;
  readonly rows_skipped: number;
  readonly accepted: number;
  readonly dropped: number;
  readonly row_errors: number;
  readonly warnings: Readonly<Record<string, number>>;
  readonly requests: number;
  readonly rate_limited: number;
  readonly server_errors: number;
  readonly network_errors: number;
  readonly splits_by_bytes: number;
  readonly splits_by_rows: number;
  readonly duration_ms: number;
  readonly rows_per_second: number;
  /** Median and 99th percentile of request latency (send to full answer), in ms. */
  readonly request_p50_ms: number;
  readonly request_p99_ms: number;
  readonly error_report: string;
  readonly checkpoint: string | null;
}

const RESUME = 're-run the same command to resume: acknowledged rows are skipped';

export function buildSummary(s: {
  o: { readonly kind: string; readonly file: string; readonly dryRun: boolean };
  format: SourceFormat;
  status: BackfillSummary['status'];
  stop: Error | null;
  tally: Tally;
  counters: RetryCounters;
  splits: { bytes: number; rows: number };
  warnings: Record<string, number>;
  rowErrors: number;
  errorReport: string;
  checkpoint: string | null;
  durationMs: number;
}): BackfillSummary {
  const { o, tally: t, counters: c } = s;
  let exit: 0 | 1 | 2 = 0;
  let message: string | null = null;
  if (s.status === 'interrupted') {
    exit = 1;
    message = `interrupted; ${s.checkpoint ? RESUME : 'nothing to resume from (no checkpoint)'}`;
  } else if (s.stop) {
    exit = s.stop instanceof BackfillStop ? s.stop.exitCode : s.stop instanceof SourceError ? 2 : 1;
    message = `${s.stop.message}${s.checkpoint ? `; fix the cause, then ${RESUME}` : ''}`;
  } else if (o.dryRun && (t.dropped > 0 || s.rowErrors > 0)) {
    exit = 2;
    // Every dropped row of a dry run is listed in the report (truncated answers are bisected).
    message = `${Math.max(t.dropped, s.rowErrors)} row(s) would not be accepted: see ${s.errorReport}`;
  }
  return {
    status: s.status,
    exit_code: exit,
    message,
    kind: o.kind,
    file: o.file,
    format: s.format,
    dry_run: o.dryRun,
    rows_read: t.rowsRead,
    rows_sent: t.rowsSent,
    rows_skipped: t.rowsSkipped,
    accepted: t.accepted,
    dropped: t.dropped,
    row_errors: s.rowErrors,
    warnings: s.warnings,
    requests: c.requests,
    rate_limited: c.rateLimited,
    server_errors: c.serverErrors,
    network_errors: c.networkErrors,
    splits_by_bytes: s.splits.bytes,
    splits_by_rows: s.splits.rows,
    duration_ms: s.durationMs,
    rows_per_second: s.durationMs > 0 ? Math.round((t.rowsDone * 1000) / s.durationMs) : 0,
    request_p50_ms: percentile(c.latenciesMs, 50),
    request_p99_ms: percentile(c.latenciesMs, 99),
    error_report: s.errorReport,
    checkpoint: s.checkpoint,
  };
}

const n = (v: number): string => v.toLocaleString('en-US');

/** The summary for people. */
export function summaryText(s: BackfillSummary): string {
  const verb = s.dry_run ? 'Dry run' : 'Backfill';
  const lines = [
    `${verb} of ${s.kind} from ${s.file} ${s.status} in ${(s.duration_ms / 1000).toFixed(1)}s`,
    `  rows read ${n(s.rows_read)}, sent ${n(s.rows_sent)}, skipped (done by an earlier run) ${n(s.rows_skipped)}`,
    `  ${s.dry_run ? 'would accept' : 'accepted'} ${n(s.accepted)}, ${s.dry_run ? 'would drop' : 'dropped'} ${n(s.dropped)}, row errors ${n(s.row_errors)}`,
    `  requests ${n(s.requests)} (rate limited ${s.rate_limited}, server errors ${s.server_errors}, ` +
      `network errors ${s.network_errors}, split by bytes ${s.splits_by_bytes}, by rows ${s.splits_by_rows})`,
  ];
  const w = Object.entries(s.warnings);
  if (w.length) lines.push(`  warnings: ${w.map(([k, v]) => `${k} ${v}`).join(', ')}`);
  lines.push(`  per-row error report: ${s.error_report}`);
  if (s.checkpoint) lines.push(`  checkpoint: ${s.checkpoint}`);
  if (s.message) lines.push(`  ${s.message}`);
  return lines.join('\n');
}

/** The p-th percentile (nearest rank), rounded to a millisecond; 0 for no samples. */
export function percentile(values: readonly number[], p: number): number {
  if (!values.length) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(
    sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!,
  );
}
