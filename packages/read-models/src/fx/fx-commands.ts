import { createHash } from 'node:crypto';
import { currencyCode, parseEcbCsv, type EcbCsvIssue } from '@holdfast/domain';
import { kyselyOn, rawQuery, sql, withTransaction, type Pool, type PoolClient } from '@holdfast/postgres';
import type { FxTables } from './fx-tables.js';
import { FX_LOCK_SQL, loadFxSnapshot } from './fx-snapshot.js';
import { convertingSchemas, reconvertOrders } from './reconvert-orders.js';
import type { RatesImportResult, UnconvertedOrders } from '../operations.js';

export type { RatesImportResult, UnconvertedOrders };

/** A rates file or a currency the operator must fix: nothing was changed. Not retriable. */
export class FxInputError extends Error {
  override readonly name = 'FxInputError';
  readonly isRetriable = false;
  constructor(
    message: string,
    readonly issues: readonly EcbCsvIssue[] = [],
  ) {
    super(message);
  }
}

const MAX_ISSUES_SHOWN = 20;

/** Runs `work` in one transaction holding the exclusive fx lock; bumps and returns fx.version. */
async function underFxLock<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  return withTransaction(pool, async (client) => {
    await rawQuery(client, 'fx-commands.lock', `select pg_advisory_xact_lock(${FX_LOCK_SQL})`);
    return work(client);
  });
}

async function bumpAndReconvert(
  client: PoolClient,
  accountId?: string,
): Promise<{ version: number; orders: number }> {
  const { version } = await kyselyOn<FxTables>(client)
    .updateTable('fx.version')
    .set((eb) => ({ version: eb('version', '+', 1) }))
    .returning('version')
    .executeTakeFirstOrThrow();
  const fx = await loadFxSnapshot(client, version);
  let orders = 0;
  for (const schema of await convertingSchemas(client))
    orders += await reconvertOrders(client, schema, fx, accountId);
  return { version, orders };
}

/**
 * `holdfast rates import`: stores the euro reference rates of an ECB CSV file (parseEcbCsv) and
 * re-converts the stored orders, in one transaction under the exclusive fx lock. Stored rates are
 * immutable: a file that gives another value for a stored currency and day is refused whole
 * (FxInputError listing them); rates already stored with the same value are counted and skipped, so
 * importing a newer full history file adds only its new days.
 *
 * @example
 * await importReferenceRates(pool, 'eurofxref-hist.csv', await readFile('eurofxref-hist.csv'));
 */
export async function importReferenceRates(
  pool: Pool,
  source: string,
  bytes: Buffer,
): Promise<RatesImportResult> {
  const parsed = parseEcbCsv(bytes.toString('utf8'));
  if (!parsed.ok)
    throw new FxInputError(
      `${source} is not an ECB reference-rates CSV: ${parsed.issues
        .slice(0, MAX_ISSUES_SHOWN)
        .map((i) => `line ${i.line}: ${i.message}`)
        .join(
          '; ',
        )}${parsed.issues.length > MAX_ISSUES_SHOWN ? `; and ${parsed.issues.length - MAX_ISSUES_SHOWN} more` : ''}`,
      parsed.issues,
    );
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const columns = [
    parsed.rates.map((r) => r.currency),
    parsed.rates.map((r) => r.day),
    parsed.rates.map((r) => r.perEur),
  ];
  return underFxLock(pool, async (client) => {
    const { rows: conflicts } = await rawQuery<{
      currency: string;
      day: string;
      stored: string;
      file: string;
    }>(
      client,
      'fx-commands.conflicting-rates',
      `select r.currency, r.rate_date::text as day, r.per_eur::text as stored, u.v::text as file
         from unnest($1::text[], $2::date[], $3::numeric[]) as u(c, d, v)
         join fx.rates r on r.currency = u.c and r.rate_date = u.d
        where r.per_eur <> u.v order by 2, 1 limit ${MAX_ISSUES_SHOWN + 1}`,
      columns,
    );
    if (conflicts.length)
      throw new FxInputError(
        `${source} changes stored rates (stored rates never change): ${conflicts
          .slice(0, MAX_ISSUES_SHOWN)
          .map((c) => `${c.currency} ${c.day} stored ${c.stored}, file ${c.file}`)
          .join('; ')}${conflicts.length > MAX_ISSUES_SHOWN ? '; and more' : ''}`,
      );
    const fx = kyselyOn<FxTables>(client);
    const { id: importId } = await fx
      .insertInto('fx.imports')
      .values({ source, sha256, days: parsed.days, rates_added: 0, rates_known: 0 })
      .returning('id')
      .executeTakeFirstOrThrow();
    const added = await rawQuery(
      client,
      'fx-commands.insert-rates',
      `insert into fx.rates (currency, rate_date, per_eur, import_id)
       select c, d, v, $4 from unnest($1::text[], $2::date[], $3::numeric[]) as u(c, d, v)
       on conflict (currency, rate_date) do nothing`,
      [...columns, importId],
    );
    const ratesAdded = added.rowCount ?? 0;
    const ratesKnown = parsed.rates.length - ratesAdded;
    await fx
      .updateTable('fx.imports')
      .set({ rates_added: ratesAdded, rates_known: ratesKnown })
      .where('id', '=', importId)
      .execute();
    const { version, orders } = await bumpAndReconvert(client);
    return {
      importId,
      days: parsed.days,
      currencies: parsed.currencies,
      ratesAdded,
      ratesKnown,
      ordersReconverted: orders,
      version,
    };
  });
}

/**
 * `holdfast accounts set-currency`: sets an account's reporting currency and re-converts its stored
 * orders, under the exclusive fx lock. The currency must be EUR or one the stored rates quote.
 * Returns the number of orders whose conversion changed.
 */
export async function setReportingCurrency(pool: Pool, accountId: string, currency: string): Promise<number> {
  const code = currencyCode(currency);
  if (!code) throw new FxInputError(`"${currency}" is not a 3-letter currency code`);
  return underFxLock(pool, async (client) => {
    const fx = kyselyOn<FxTables>(client);
    if (code !== 'EUR') {
      const quoted = await fx
        .selectFrom('fx.rates')
        .select(sql<number>`1`.as('one'))
        .where('currency', '=', code)
        .limit(1)
        .executeTakeFirst();
      if (!quoted)
        throw new FxInputError(
          `no reference rates quote ${code}: import rates that do first (holdfast rates import)`,
        );
    }
    await fx
      .insertInto('fx.account_currencies')
      .values({ account_id: accountId, reporting_currency: code })
      .onConflict((oc) =>
        oc.column('account_id').doUpdateSet((eb) => ({
          reporting_currency: eb.ref('excluded.reporting_currency'),
          set_at: sql<Date>`now()`,
        })),
      )
      .execute();
    return (await bumpAndReconvert(client, accountId)).orders;
  });
}

/** `holdfast rates unconverted`: orders counted at 1.0 per account and currency (reads the view). */
export async function unconvertedOrders(
  pool: Pool,
  schema: string,
  accountId?: string,
): Promise<UnconvertedOrders[]> {
  const { rows } = await rawQuery<UnconvertedOrders>(
    pool,
    'fx-commands.unconverted-orders',
    `select account_id::text, currency, reporting_currency, fx_status, orders, first_order_date, last_order_date
       from "${schema}".orders_unconverted ${accountId ? 'where account_id = $1' : ''}
      order by account_id, orders desc, currency`,
    accountId ? [accountId] : [],
  );
  return rows;
}
