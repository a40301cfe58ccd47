import { createReadStream, existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { Option } from 'commander';
import {
  fitFromOrderRows,
  OrderCsvError,
  parseOrderCsv,
  type OrderRow,
  type OrderRowsFit,
} from '@holdfast/analytics';
import { CliError } from '../context.js';
import type { RegisterCommand } from './index.js';

/** Data lines handed to parseOrderCsv at a time: the file is streamed, never read whole. */
const LINES_PER_CHUNK = 50_000;

function calibrationEnd(value: string): Date {
  const ms = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value);
  if (!Number.isFinite(ms))
    throw new CliError(`--calibration-end must be a date such as 1997-09-30, not "${value}"`, 2);
  return new Date(ms);
}

/**
 * Reads an order CSV (header customer_id,order_date,order_amount, any order, extra columns ignored)
 * line by line and parses it in chunks with parseOrderCsv, so a large export is never one string.
 * parseOrderCsv reads one record per line (quoted fields cannot span lines), so any line boundary is a
 * record boundary. Error line numbers are the file's.
 */
export async function readOrderCsv(file: string): Promise<OrderRow[]> {
  const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
  const rows: OrderRow[] = [];
  let header: string | undefined;
  let chunk: string[] = [];
  let chunkStart = 2; // file line number of chunk[0]
  let lineNo = 0;
  const flush = () => {
    if (header === undefined || chunk.length === 0) return;
    try {
      for (const row of parseOrderCsv(`${header}\n${chunk.join('\n')}`)) rows.push(row);
    } catch (err) {
      if (err instanceof OrderCsvError)
        throw new OrderCsvError(err.message.replace(/^line \d+: /, ''), err.line - 2 + chunkStart);
      throw err;
    }
    chunkStart = lineNo + 1;
    chunk = [];
  };
  for await (const line of lines) {
    lineNo++;
    if (header === undefined) {
      header = line;
      parseOrderCsv(header); // checks the columns before anything else is read
      continue;
    }
    chunk.push(line);
    if (chunk.length >= LINES_PER_CHUNK) flush();
  }
  if (header === undefined)
    throw new OrderCsvError('empty file: expected the header customer_id,order_date,order_amount', 1);
  flush();
  return rows;
}

function fitText(fit: OrderRowsFit): string {
  const f = (v: number) => v.toPrecision(6);
  const gg = fit.gamma_gamma;
  const pn = fit.pareto_nbd;
  return [
    `customers ${fit.customers}, repeat customers ${fit.repeat_customers}`,
    `BG/NBD       r=${f(fit.bgnbd.r)} alpha=${f(fit.bgnbd.alpha)} a=${f(fit.bgnbd.a)} b=${f(fit.bgnbd.b)}` +
      `  log-likelihood ${fit.bgnbd.log_likelihood.toFixed(3)}`,
    `Pareto/NBD   r=${f(pn.r)} alpha=${f(pn.alpha)} s=${f(pn.s)} beta=${f(pn.beta)}` +
      `  log-likelihood ${pn.log_likelihood.toFixed(3)}` +
      (pn.failure === null ? '' : `  NOT USABLE: ${pn.failure}`),
    gg
      ? `Gamma-Gamma  p=${f(gg.p)} q=${f(gg.q)} gamma=${f(gg.gamma)}  log-likelihood ${gg.log_likelihood.toFixed(3)}`
      : 'Gamma-Gamma  not fitted (no repeat customer with positive spend)',
  ].join('\n');
}

/**
 * `holdfast analytics fit --orders FILE --calibration-end DATE`: fits BG/NBD, Pareto/NBD and Gamma-Gamma
 * to an order export, offline (no stack needed), exactly as the recompute summarises orders (same-day
 * orders are one transaction, T measured to the calibration-end day, durations in weeks).
 */
export const registerAnalytics: RegisterCommand = (program, context) => {
  const analytics = program.command('analytics').description('customer analytics on files, offline');
  analytics
    .command('fit')
    .description(
      'fit BG/NBD, Pareto/NBD and Gamma-Gamma to an order CSV (customer_id,order_date,order_amount)',
    )
    .requiredOption('--orders <file>', 'CSV with the header customer_id,order_date,order_amount')
    .requiredOption('--calibration-end <date>', 'last day of the calibration period, UTC (e.g. 1997-09-30)')
    .addOption(
      new Option('--time-unit <unit>', 'unit of t_x, T and alpha')
        .choices(['weeks', 'days'])
        .default('weeks'),
    )
    .addHelpText(
      'after',
      `
Prints {"customers","repeat_customers","bgnbd":{"r","alpha","a","b","log_likelihood"},
"pareto_nbd":{"r","alpha","s","beta","log_likelihood","failure"},
"gamma_gamma":{"p","q","gamma","log_likelihood"}} with --json (gamma_gamma is null when no repeat
customer has positive spend; pareto_nbd.failure is null when the fit converged, else
no_repeat_purchases, not_converged, at_bound or not_finite). Orders after the calibration-end day are ignored.
Exit codes: 0 fitted, 2 bad CSV, bad date or no repeat purchase to fit, 3 file not found.`,
    )
    .action(async (o: { orders: string; calibrationEnd: string; timeUnit: 'weeks' | 'days' }) => {
      const ctx = context();
      const end = calibrationEnd(o.calibrationEnd);
      if (!existsSync(o.orders)) throw new CliError(`no such file: ${o.orders}`, 3);
      let fit: OrderRowsFit;
      try {
        fit = fitFromOrderRows(await readOrderCsv(o.orders), end, { timeUnit: o.timeUnit });
      } catch (err) {
        if (err instanceof OrderCsvError || err instanceof RangeError)
          throw new CliError(`${o.orders}: ${err.message}`, 2);
        throw err;
      }
      ctx.out(fit, () => fitText(fit));
    });
};
