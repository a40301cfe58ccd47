import { sql, type Kysely } from 'kysely';

/**
 * Currency conversion's reference data, in its own schema `fx` (the projector reads it while folding
 * orders and must not see the control plane):
 * - `fx.rates`: euro reference rates by currency and day (the ECB's), insert-only: a rate once stored
 *   never changes, so every conversion made from it can be made again the same (see docs/campaigns.md
 *   "Currency");
 * - `fx.imports`: one row per `holdfast rates import` (what was read, what was added);
 * - `fx.account_currencies`: each account's reporting currency (USD when absent);
 * - `fx.version`: bumped by every import and currency change; the projector reloads on a new version.
 */
// Frozen in time: never edit a migration that has run; add a new one.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create schema if not exists fx;
    create table fx.imports (
      id bigint generated always as identity primary key,
      imported_at timestamptz not null default now(),
      -- the file's name as given, and the SHA-256 of its bytes
      source text not null,
      sha256 text not null,
      days integer not null,
      rates_added integer not null,
      -- rates of the file already stored with the same value
      rates_known integer not null
    );
    create table fx.rates (
      currency text not null check (currency ~ '^[A-Z]{3}$'),
      rate_date date not null,
      -- units of currency per 1 EUR
      per_eur numeric not null check (per_eur > 0),
      import_id bigint not null references fx.imports(id),
      primary key (currency, rate_date)
    );
    create table fx.account_currencies (
      account_id uuid primary key references control.accounts(id),
      reporting_currency text not null check (reporting_currency ~ '^[A-Z]{3}$'),
      set_at timestamptz not null default now()
    );
    create table fx.version (
      one boolean primary key default true check (one),
      version bigint not null default 0
    );
    insert into fx.version default values;
  `.execute(db);
}
