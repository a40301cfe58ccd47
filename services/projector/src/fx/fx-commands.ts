import { createHash } from 'node:crypto';
import { parseEcbCsv, type EcbCsvIssue } from '@holdfast/domain';
import { withTransaction, type Pool, type PoolClient } from '@holdfast/db';
import { FX_LOCK_SQL, loadFxSnapshot } from './fx-snapshot.js';
import { convertingSchemas, reconvertOrders } from './reconvert-orders.js';
import type { RatesImportResult, UnconvertedOrders } from '@holdfast/read-models';

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
    await client.query(`select pg_advisory_xact_lock(${FX_LOCK_SQL})`);
    return work(client);
  });
}

async function bumpAndReconvert(
  client: PoolClient,
  accountId?: string,
): Promise<{ version: number; orders: number }> {
  const { rows } = await client.query<{ version: string }>(
    `update fx.version set version = version + 1 returning version::text`,
  );
  const version = Number(rows[0]!.version);
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
    const { rows: conflicts } = await client.query<{
      currency: string;
      day: string;
      stored: string;
      file: string;
    }>(
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
    const { rows: imp } = await client.query<{ id: string }>(
      `insert into fx.imports (source, sha256, days, rates_added, rates_known) values ($1, $2, $3, 0, 0) returning id::text`,
      [source, sha256, parsed.days],
    );
    const importId = Number(imp[0]!.id);
    const added = await client.query(
      `insert into fx.rates (currency, rate_date, per_eur, import_id)
       select c, d, v, $4 from unnest($1::text[], $2::date[], $3::numeric[]) as u(c, d, v)
       on conflict (currency, rate_date) do nothing`,
      [...columns, importId],
    );
    const ratesAdded = added.rowCount ?? 0;
    const ratesKnown = parsed.rates.length - ratesAdded;
    await client.query(`update fx.imports set rates_added = $2, rates_known = $3 where id = $1`, [
      importId,
      ratesAdded,
      ratesKnown,
    ]);
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

const CODE = /^[A-Z]{3}$/;

/**
 * `holdfast accounts set-currency`: sets an account's reporting currency and re-converts its stored
 * orders, under the exclusive fx lock. The currency must be EUR or one the stored rates quote.
 * Returns the number of orders whose conversion changed.
 */
export async function setReportingCurrency(pool: Pool, accountId: string, currency: string): Promise<number> {
  const code = currency.trim().toUpperCase();
  if (!CODE.test(code)) throw new FxInputError(`"${currency}" is not a 3-letter currency code`);
  return underFxLock(pool, async (client) => {
    if (code !== 'EUR') {
      const { rows } = await client.query(`select 1 from fx.rates where currency = $1 limit 1`, [code]);
      if (!rows.length)
        throw new FxInputError(
          `no reference rates quote ${code}: import rates that do first (holdfast rates import)`,
        );
    }
    await client.query(
      `insert into fx.account_currencies (account_id, reporting_currency) values ($1, $2)
       on conflict (account_id) do update set reporting_currency = excluded.reporting_currency, set_at = now()`,
      [accountId, code],
    );
    return (await bumpAndReconvert(client, accountId)).orders;
  });
}

/** `holdfast rates unconverted`: orders counted at 1.0 per account and currency (reads the view). */
export async function unconvertedOrders(
  pool: Pool,
  schema: string,
  accountId?: string,
): Promise<UnconvertedOrders[]> {
  const { rows } = await pool.query<UnconvertedOrders>(
    `select account_id::text, currency, reporting_currency, fx_status, orders, first_order_date, last_order_date
       from "${schema}".orders_unconverted ${accountId ? 'where account_id = $1' : ''}
      order by account_id, orders desc, currency`,
    accountId ? [accountId] : [],
  );
  return rows;
}
