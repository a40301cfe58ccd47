// The kysely types of the fx schema (migrations/2026-11-24T03-00-fx.ts), as `pg` returns them through
// `createPool` (bigint and numeric as numbers, timestamptz as Dates). Read and written by the projector's
// fx commands (`holdfast rates import`, `accounts set-currency`) and its fx snapshot. Each has a column
// list (`satisfies` its keys) that the projector's fx/fx-tables.int.test.ts holds to the migrated tables.
import type { ColumnType, Generated, Kysely } from 'kysely';
import { rowColumns } from '@holdfast/postgres';

type Timestamp = ColumnType<Date, Date | string, Date | string>;
/** A date column: read as a Date by pg; written as `YYYY-MM-DD`. */
type DateColumn = ColumnType<Date, string, string>;

/** fx.imports: one row per `holdfast rates import`. */
export interface FxImportsTable {
  id: Generated<number>;
  imported_at: Generated<Date>;
  source: string;
  sha256: string;
  days: number;
  rates_added: number;
  rates_known: number;
}

/** fx.rates: euro reference rates by currency and day (insert-only). */
export interface FxRatesTable {
  currency: string;
  rate_date: DateColumn;
  /** Units of currency per 1 EUR; read it as text (`per_eur::text`) where the exact decimal matters. */
  per_eur: number;
  import_id: number;
}

/** fx.account_currencies: each account's reporting currency (USD when absent). */
export interface FxAccountCurrenciesTable {
  account_id: string;
  reporting_currency: string;
  set_at: Generated<Timestamp>;
}

/** fx.version: one row, bumped by every import and currency change. */
export interface FxVersionTable {
  one: Generated<boolean>;
  version: Generated<number>;
}

/** The fx tables for kysely, by qualified name. */
export interface FxTables {
  'fx.imports': FxImportsTable;
  'fx.rates': FxRatesTable;
  'fx.account_currencies': FxAccountCurrenciesTable;
  'fx.version': FxVersionTable;
}

/** Every column of each fx table, in table order. */
export const FX_TABLE_COLUMNS = {
  'fx.imports': rowColumns<FxImportsTable>()({
    id: true,
    imported_at: true,
    source: true,
    sha256: true,
    days: true,
    rates_added: true,
    rates_known: true,
  }),
  'fx.rates': rowColumns<FxRatesTable>()({ currency: true, rate_date: true, per_eur: true, import_id: true }),
  'fx.account_currencies': rowColumns<FxAccountCurrenciesTable>()({
    account_id: true,
    reporting_currency: true,
    set_at: true,
  }),
  'fx.version': rowColumns<FxVersionTable>()({ one: true, version: true }),
} as const;

/** The account's reporting currency (USD when never set: the projector's default). */
export async function readReportingCurrency(db: Kysely<FxTables>, accountId: string): Promise<string> {
  const row = await db
    .selectFrom('fx.account_currencies')
    .select('reporting_currency')
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return row?.reporting_currency ?? 'USD';
}
