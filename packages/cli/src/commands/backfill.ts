import { existsSync } from 'node:fs';
import { Argument, Option } from 'commander';
import { MAX_BYTES, MAX_ROWS } from '../backfill/batch.js';
import { CheckpointMismatchError } from '../backfill/checkpoint.js';
import { runBackfill } from '../backfill/run.js';
import { summaryText } from '../backfill/summary.js';
import { SourceError } from '../backfill/source.js';
import { CliError } from '../context.js';
import { httpUrl, parseDuration, positiveInt } from '../format.js';
import type { RegisterCommand } from './index.js';

interface BackfillFlags {
  url?: string;
  key?: string;
  concurrency: number;
  dryRun?: boolean;
  state?: string;
  errors?: string;
  batchRows: number;
  batchBytes: number;
  retries: number;
  retryBaseMs: number;
  timeout: number;
  progressInterval?: number;
}

function checkKey(key: string | undefined): string {
  if (!key) throw new CliError('no ingest key: pass --key or set HOLDFAST_INGEST_KEY', 2);
  if (key.startsWith('sk_live_'))
    throw new CliError(
      'sk_live_ keys are for outbound webhooks and do not authorize ingest: use a tk_live_ key',
      2,
    );
  if (!key.startsWith('tk_live_') && !key.startsWith('tk_test_'))
    throw new CliError('the key must be an ingest key (tk_live_…, or tk_test_… for a sandbox account)', 2);
  return key;
}

/** `holdfast backfill orders|customers FILE`: stream a CSV or NDJSON file into the ingest API. */
export const registerBackfill: RegisterCommand = (program, context) => {
  program
    .command('backfill')
    .description('stream a CSV or NDJSON file into POST /ingest/orders or /ingest/customers (resumable)')
    .addArgument(new Argument('<kind>', 'what the file holds').choices(['orders', 'customers']))
    .argument('<file>', 'CSV with a header row, or NDJSON; - for stdin')
    .option('--url <url>', 'gateway base address (default: $HOLDFAST_BASE_URL)', httpUrl)
    .option(
      '--key <key>',
      'ingest key tk_live_… (default: $HOLDFAST_INGEST_KEY, which keeps it out of shell history)',
    )
    .option('--concurrency <n>', 'requests in flight', positiveInt, 4)
    .option('--dry-run', 'validate every row (?dry_run=true), write nothing, report problems per row')
    .option('--state <path>', 'checkpoint file (default: FILE.holdfast-progress.json)')
    .option('--errors <path>', 'per-row error report, NDJSON (default: FILE.holdfast-errors.ndjson)')
    .option('--batch-rows <n>', `rows per request, at most ${MAX_ROWS}`, positiveInt, MAX_ROWS)
    .option('--retries <n>', 'retries of a batch after 5xx or network errors', positiveInt, 8)
    .addOption(
      new Option('--timeout <duration>', 'per-request timeout').argParser(parseDuration).default(120, '120s'),
    )
    .addOption(new Option('--batch-bytes <n>').argParser(positiveInt).default(MAX_BYTES).hideHelp())
    .addOption(new Option('--retry-base-ms <n>').argParser(positiveInt).default(500).hideHelp())
    .addOption(new Option('--progress-interval <ms>').argParser(positiveInt).hideHelp())
    .addHelpText(
      'after',
      `
CSV: numeric columns (order_amount, refunded_amount, discount_total, discount_pct) become numbers,
discount_codes is split on | or ;, empty cells are omitted, dotted headers (consent.sms) nest.
Interrupted or stopped runs resume: re-run the same command and acknowledged rows are skipped.
Exit codes: 0 done (dry run: no row problems), 1 failure or interrupted, 2 a 4xx refusal, bad file or
(dry run) rows that would be dropped, 3 file not found.`,
    )
    .action(async (kind: 'orders' | 'customers', file: string, o: BackfillFlags) => {
      const ctx = context();
      const url = o.url ?? ctx.env.HOLDFAST_BASE_URL;
      if (!url)
        throw new CliError(
          'no endpoint: pass --url (e.g. http://127.0.0.1:8080) or set HOLDFAST_BASE_URL',
          2,
        );
      const key = checkKey(o.key ?? ctx.env.HOLDFAST_INGEST_KEY);
      if (o.batchRows > MAX_ROWS) throw new CliError(`--batch-rows is at most ${MAX_ROWS}`, 2);
      if (file !== '-' && !existsSync(file)) throw new CliError(`no file ${file}`, 3);
      const ac = new AbortController();
      const onSigint = (): void => {
        if (ac.signal.aborted) process.exit(1);
        ctx.log('holdfast: interrupting after the requests in flight (Ctrl-C again to quit at once)');
        ac.abort();
      };
      process.on('SIGINT', onSigint);
      try {
        const summary = await runBackfill({
          kind,
          file,
          url,
          key,
          concurrency: o.concurrency,
          dryRun: Boolean(o.dryRun),
          statePath: o.state,
          errorsPath: o.errors,
          maxRows: o.batchRows,
          maxBytes: Math.min(o.batchBytes, MAX_BYTES),
          retries: o.retries,
          retryBaseMs: o.retryBaseMs,
          timeoutMs: o.timeout * 1000,
          signal: ac.signal,
          stdin: ctx.io.stdin,
          stderr: ctx.io.stderr,
          stderrIsTTY: ctx.io.stderrIsTTY,
          progressIntervalMs: o.progressInterval,
        });
        ctx.out(summary, () => summaryText(summary));
        if (summary.exit_code !== 0) throw new CliError(summary.message ?? summary.status, summary.exit_code);
      } catch (err) {
        if (err instanceof CheckpointMismatchError || err instanceof SourceError)
          throw new CliError(err.message, 2);
        throw err;
      } finally {
        process.off('SIGINT', onSigint);
      }
    });
};
