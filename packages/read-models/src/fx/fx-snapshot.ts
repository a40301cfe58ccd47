import { conversionOn, ReferenceRates, type Conversion } from '@holdfast/domain';
import { kyselyOn, namedSql, rawQuery, sql, type PoolClient } from '@holdfast/postgres';
import type { FxTables } from './fx-tables.js';

/** The reporting currency of an account that never set one. */
export const DEFAULT_REPORTING_CURRENCY = 'USD';

/**
 * The advisory lock between conversions and what they are computed from. Every projector chunk holds
 * it shared for its transaction; `holdfast rates import` and a reporting-currency change hold it
 * exclusively while they change the rates (or currency) and re-convert the stored orders. So a chunk
 * either committed before the change (and its orders are re-converted with the rest) or starts after
 * it (and reads the new version): no order keeps a conversion from superseded data.
 */
export const FX_LOCK_SQL = `hashtext('holdfast.fx')`;

/** Every chunk's fx statement (see `FxSnapshots.current`), named once. */
const LOCK_AND_READ_VERSION = namedSql(
  'fx-snapshot.lock-and-read-version',
  `select pg_advisory_xact_lock_shared(${FX_LOCK_SQL}); select version::text from fx.version`,
);

/**
 * The rates and reporting currencies of one `fx.version`: converts an order's amounts. Conversions are
 * memoised per reporting currency, order currency and UTC day (a backfill repeats them millions of
 * times).
 */
export class FxSnapshot {
  private readonly memo = new Map<string, Conversion>();
  private readonly atPar = new Map<string, Conversion>();

  constructor(
    readonly version: number,
    readonly rates: ReferenceRates,
    private readonly currencies: ReadonlyMap<string, string>,
  ) {}

  reportingCurrency(accountId: string): string {
    return this.currencies.get(accountId) ?? DEFAULT_REPORTING_CURRENCY;
  }

  /** The conversion of an order of `accountId` in `currency` placed at `orderDate` (ISO instant). */
  conversion(accountId: string, currency: string, orderDate: string): Conversion {
    const to = this.reportingCurrency(accountId);
    // An order in its account's reporting currency converts at par whatever its date (conversionOn's
    // first rule): no key text is built. This runs for every order of a backfill; the keyed memo
    // below was 4.9 % of a rebuild's busy time (docs/performance.md, item 16).
    if (currency === to) return this.same(to);
    // The conversion depends on the two currencies and the order's UTC day, not on the account.
    const key = `${to}\u0000${currency}\u0000${orderDate.slice(0, 10)}`;
    // The memo key is the date as written; the UTC day decides, so only UTC ('Z') instants share it.
    const memoable = orderDate.endsWith('Z');
    const hit = memoable ? this.memo.get(key) : undefined;
    if (hit) return hit;
    const c = conversionOn(this.rates, currency, to, orderDate);
    if (memoable) this.memo.set(key, c);
    return c;
  }

  private same(to: string): Conversion {
    let c = this.atPar.get(to);
    if (!c) this.atPar.set(to, (c = conversionOn(this.rates, to, to, '1970-01-01T00:00:00Z')));
    return c;
  }
}

/**
 * One projection's view of `fx.*`, per database (tests run several in one process), reloaded when
 * `fx.version` moves. `current` takes the shared fx lock for the caller's transaction first
 * (FX_LOCK_SQL), so the version it reads holds until that transaction ends.
 */
export class FxSnapshots {
  private readonly byDatabase = new Map<string, FxSnapshot>();
  /** With no fx data at all: every account reports in USD and only same-currency orders convert. */
  private readonly empty = new FxSnapshot(-1, ReferenceRates.EMPTY, new Map());

  // The connections known to reach a database with the fx tables (a connection never changes database).
  private readonly databaseOf = new WeakMap<PoolClient, string>();

  async current(client: PoolClient): Promise<FxSnapshot> {
    let db = this.databaseOf.get(client);
    if (db === undefined) {
      const { rows } = await rawQuery<{ db: string; present: boolean }>(
        client,
        'fx-snapshot.find-fx-tables',
        `select current_database() as db, to_regclass('fx.version') is not null as present`,
      );
      // Before the control-plane migrations ran (a bare test database): no fx data.
      if (!rows[0]?.present) return this.empty;
      db = rows[0].db;
      this.databaseOf.set(client, db);
    }
    // Two statements in one round trip: under READ COMMITTED each statement of a query string takes
    // its own snapshot when it starts, so the version is read after the lock is held (a version read in
    // the statement that waited for the lock could predate the change it waited for). One round trip
    // instead of three per chunk.
    const results: unknown = await client.query(LOCK_AND_READ_VERSION);
    // pg answers a query string of two statements with two results; anything else would leave the
    // version unread and the snapshot stale, so it fails the chunk instead.
    if (!Array.isArray(results) || results.length !== 2)
      throw new Error('fx version: expected two results from the lock-and-read query');
    const version = Number((results[1] as { rows: { version?: string }[] }).rows[0]?.version ?? 0);
    let snapshot = this.byDatabase.get(db);
    if (snapshot?.version !== version) {
      snapshot = await loadFxSnapshot(client, version);
      this.byDatabase.set(db, snapshot);
    }
    return snapshot;
  }
}

/** Reads every rate and reporting currency (a few hundred thousand rows for the full ECB history). */
export async function loadFxSnapshot(client: PoolClient, version: number): Promise<FxSnapshot> {
  const fx = kyselyOn<FxTables>(client);
  // As text: a JS Date would shift the day to local time, a number would round the rate.
  const [rates, currencies] = await Promise.all([
    fx
      .selectFrom('fx.rates')
      .select(['currency', sql<string>`rate_date::text`.as('day'), sql<string>`per_eur::text`.as('per_eur')])
      .execute(),
    fx.selectFrom('fx.account_currencies').select(['account_id', 'reporting_currency']).execute(),
  ]);
  return new FxSnapshot(
    version,
    ReferenceRates.from(rates.map((r) => ({ currency: r.currency, day: r.day, perEur: r.per_eur }))),
    new Map(currencies.map((r) => [r.account_id, r.reporting_currency])),
  );
}
