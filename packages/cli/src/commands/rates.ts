import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { CliError, type CliContext } from '../context.js';
import { table, uuid, when } from '../format.js';
import type { RegisterCommand } from './index.js';
import {
  readModelSchemaOf,
  FxInputError,
  importReferenceRates,
  unconvertedOrders,
} from '@holdfast/read-models';

const readSchemaOf = (ctx: CliContext, option?: string) => readModelSchemaOf(ctx.env, option);

/** Maps the fx commands' input errors to a usage failure (nothing was changed). */
export async function fxCommand<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof FxInputError) throw new CliError(err.message, 2);
    const pg = err as { code?: string; constraint?: string };
    if (pg.code === '23503') throw new CliError('no such account', 3);
    throw err;
  }
}

/** `holdfast rates import|unconverted`: the euro reference rates orders are converted with. */
export const registerRates: RegisterCommand = (program, context) => {
  const rates = program
    .command('rates')
    .description('euro reference rates (ECB) that order amounts are converted with');

  rates
    .command('import')
    .description(
      'store the rates of an ECB CSV file (eurofxref-hist.csv or eurofxref.csv) and re-convert orders',
    )
    .argument('<file>', 'the CSV file (unzipped)')
    .action(async (file: string) => {
      const ctx = context();
      await ctx.db(); // migrated: the fx tables exist
      const bytes = await readFile(file).catch((err: NodeJS.ErrnoException) => {
        throw new CliError(`cannot read ${file}: ${err.code ?? err.message}`, 2);
      });
      const r = await fxCommand(() => importReferenceRates(ctx.pool(), basename(file), bytes));
      ctx.out(
        {
          import_id: r.importId,
          days: r.days,
          currencies: r.currencies,
          rates_added: r.ratesAdded,
          rates_known: r.ratesKnown,
          orders_reconverted: r.ordersReconverted,
          fx_version: r.version,
        },
        `Imported ${file}: ${r.days} days, ${r.currencies.length} currencies, ${r.ratesAdded} rates added ` +
          `(${r.ratesKnown} already stored); ${r.ordersReconverted} orders re-converted.`,
      );
    });

  rates
    .command('unconverted')
    .description(
      'orders counted at rate 1.0 (unknown currency code, or no rate near the order date), per account',
    )
    .option('--account <id>', 'one account only', uuid)
    .option('--read-schema <name>', 'read-model schema (default: $HOLDFAST_READ_SCHEMA or read_models)')
    .action(async (o: { account?: string; readSchema?: string }) => {
      const ctx = context();
      const rows = await unconvertedOrders(ctx.pool(), readSchemaOf(ctx, o.readSchema), o.account);
      ctx.out(rows, () =>
        rows.length
          ? table(
              ['ACCOUNT', 'CURRENCY', 'REPORTING', 'STATUS', 'ORDERS', 'FIRST', 'LAST'],
              rows.map((r) => [
                r.account_id,
                r.currency,
                r.reporting_currency,
                r.fx_status,
                String(r.orders),
                when(r.first_order_date),
                when(r.last_order_date),
              ]),
            )
          : 'Every order converts at a published rate.',
      );
    });
};
