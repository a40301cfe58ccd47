import { to as copyTo, from as copyFrom } from 'pg-copy-streams';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  HoldoutGroups,
  holdoutDays,
  isHoldout,
  netOrderAmount,
  scoreWithFit,
  summarizeDays,
  zeroSummaryNumbers,
  type AccountFit,
  type AccountStatistics,
  type HoldoutHistories,
  type IntervalScorer,
  type ScoreOptions,
  type ScoringCache,
} from '@holdfast/analytics';
import {
  inTransaction,
  namedSql,
  rawQuery,
  type PoolClient,
  type TransactionOptions,
} from '@holdfast/postgres';
import { localDayOf, storeZoneOf, zoneOfCustomer } from '@holdfast/local-time';
import { recomputeDbOn } from '../recompute-database.js';
import { AccountGroups } from './account-groups.js';
import { LineSplitter, nextTab, readDecimal, readInt } from './copy-text.js';
import { scoreLines } from './score-rows.js';
import { allowLongStatements, longQuery, settleCopyOut } from './write-scores.js';

const DAY_MS = 86_400_000;
/** Rows scored and written at a time: the only per-customer memory of the write phase. */
export const CHUNK_ROWS = 10_000;
/** Staged text handed to COPY at a time. */
const STAGE_FLUSH_CHARS = 1 << 16;

/** What the first pass found: the fit's statistics and the counts of the outcome. */
export interface StagedAccount {
  /**
   * The fit's grouped statistics (typed arrays only: the grouping's tables are let go at the end of
   * the pass, so the fit and the write phase do not hold them).
   */
  readonly statistics: AccountStatistics;
  /** Distinct (x, t_x, T) and (x, m_x) groups of `statistics`. */
  readonly groupCounts: { readonly rfm: number; readonly spend: number };
  /** Orders counted (not cancelled, with a resolved customer, on or before the as-of day). */
  readonly orders: number;
  /** Every order and customer row of the account in the snapshot read (a sync task's counters). */
  readonly snapshot: { readonly orders: number; readonly customers: number };
  /** The account's store_timezone as the recompute reads it (`storeZoneOf`). */
  readonly storeZone: string;
  /**
   * With the model check asked for and a history long enough (`holdoutDays`): every customer acquired
   * by the calibration end, with their calibration (x, t_x, T) and their purchase days in the holdout,
   * grouped; else null.
   */
  readonly holdout: HoldoutHistories | null;
}

const SNAPSHOT_READ: TransactionOptions = { isolation: 'repeatable read', readOnly: true };

/**
 * Pass 1 of a streamed recompute: reads the account's orders, customer by customer, in one snapshot
 * (`reader`), folds each customer's orders into their summary and writes it to the staging table
 * `stage` (`writer`, COPY), gathering the fit's grouped statistics on the way. Nothing per customer
 * stays in memory: the orders stream from PostgreSQL sorted by customer (PostgreSQL sorts on disk
 * when it must), and each summary leaves as a staged line.
 *
 * The rules are the pure functions production shares with its tests:
 * - a customer's zone is `zoneOfCustomer(address_zip, address_country, store_timezone)`;
 * - an order's day is `localDayOf(order_date, zone)`, the as-of day `localDayOf(asOf, zone)`;
 *   orders after it do not count;
 * - its amount is `netOrderAmount(gross, refunded)` in the reporting currency; cancelled orders and
 *   orders without a resolved customer do not count;
 * - the summary is `summarizeDays` (CustomerDays' semantics).
 *
 * With `modelCheck`, the same pass splits each customer's days for the holdout check: the account's
 * history (its first counted order to the as-of day, in the store's zone) gives the days held out
 * (`holdoutDays`: half, in whole weeks, at most 52); a customer's calibration summary is
 * `summarizeDays` to their local as-of day minus those days, and their holdout purchases the purchase
 * days added after it. They are grouped by (x, t_x, T, x*) (`HoldoutGroups`), never kept per customer.
 *
 * Returns null when the read models do not exist yet (the projector has not started).
 */
export async function stageAccount(
  reader: PoolClient,
  writer: PoolClient,
  schema: string,
  account: string,
  asOf: Date,
  stage: string,
  unitDays: number,
  modelCheck = false,
): Promise<StagedAccount | null> {
  return inTransaction(
    reader,
    async () => {
      const { rows } = await rawQuery<{ ok: boolean; settings: boolean }>(
        reader,
        'stream-account.read-models-exist',
        `select to_regclass($1) is not null and to_regclass($2) is not null as ok,
                to_regclass($3) is not null as settings`,
        [`"${schema}".orders`, `"${schema}".customers`, `"${schema}".account_settings`],
      );
      if (!rows[0]?.ok) return null;
      const db = recomputeDbOn(reader).withSchema(schema);
      // Counted in the snapshot that is scored, so a task's counters describe exactly what it scored.
      const counted = await db
        .selectNoFrom((eb) => [
          eb
            .cast<number>(
              eb.selectFrom('orders').select(eb.fn.countAll().as('n')).where('account_id', '=', account),
              'integer',
            )
            .as('orders'),
          eb
            .cast<number>(
              eb.selectFrom('customers').select(eb.fn.countAll().as('n')).where('account_id', '=', account),
              'integer',
            )
            .as('customers'),
        ])
        .executeTakeFirstOrThrow();
      // account_settings is created by its own projection, maybe not yet.
      const settings = rows[0].settings
        ? await db
            .selectFrom('account_settings')
            .select('store_timezone')
            .where('account_id', '=', account)
            .executeTakeFirst()
        : undefined;
      const storeZone = storeZoneOf(settings?.store_timezone);
      await allowLongStatements(reader);
      // Plain scans: JIT compilation costs about a second here and saves less.
      await rawQuery(reader, 'stream-account.jit-off', 'set local jit = off');
      const groups = new AccountGroups(unitDays);
      const check = modelCheck ? await holdoutPlan(reader, schema, account, asOf, storeZone, unitDays) : null;
      let orders = 0;
      await inTransaction(writer, async () => {
        await allowLongStatements(writer);
        await rawQuery(
          writer,
          'stream-account.create-stage',
          `create unlogged table analytics."${stage}" (customer_id text, external_id text, x integer,
             tx_days integer, t_days integer, monetary text, total text)`,
        );
        const source = stagedLines(
          reader,
          schema,
          account,
          asOf,
          storeZone,
          groups,
          check,
          (n) => (orders += n),
        );
        await pipeline(
          Readable.from(source),
          writer.query(
            longQuery(
              copyFrom(
                namedSql('stream-account.copy-stage', `copy analytics."${stage}" from stdin with (freeze)`),
              ),
            ),
          ),
        );
      });
      return {
        statistics: groups.statistics(),
        groupCounts: groups.groups,
        orders,
        snapshot: { orders: counted.orders, customers: counted.customers },
        storeZone,
        holdout: check ? check.groups.histories(check.days / unitDays) : null,
      };
    },
    SNAPSHOT_READ,
  );
}

/** The model check's split: the days held out, and where the customers' split histories gather. */
interface HoldoutPlan {
  readonly days: number;
  readonly groups: HoldoutGroups;
  readonly unitDays: number;
}

/** No zone is more than 14 h ahead of UTC: nothing on or before the as-of day of any zone is later. */
function readEnd(asOf: Date): string {
  return new Date((Math.floor(asOf.getTime() / DAY_MS) + 2) * DAY_MS).toISOString();
}

/**
 * The holdout of the model check, from the account's first counted order (in the snapshot `reader`
 * reads), its history measured in the store's zone: null when it is too short (`holdoutDays`).
 */
async function holdoutPlan(
  reader: PoolClient,
  schema: string,
  account: string,
  asOf: Date,
  storeZone: string,
  unitDays: number,
): Promise<HoldoutPlan | null> {
  const first = await recomputeDbOn(reader)
    .withSchema(schema)
    .selectFrom('orders')
    .select((eb) => eb.fn.min('order_date').as('first'))
    .where('account_id', '=', account)
    .where('cancelled_at', 'is', null)
    .where('customer_id', 'is not', null)
    .where('order_date', '<', new Date(readEnd(asOf)))
    .executeTakeFirst();
  if (!first?.first) return null;
  const historyDays = localDayOf(asOf, storeZone) - localDayOf(new Date(first.first).getTime(), storeZone);
  const days = holdoutDays(historyDays);
  return days === null ? null : { days, groups: new HoldoutGroups(), unitDays };
}

/** The staged lines of pass 1 (see {@link stageAccount}), made as the orders stream in. */
async function* stagedLines(
  reader: PoolClient,
  schema: string,
  account: string,
  asOf: Date,
  storeZone: string,
  groups: AccountGroups,
  check: HoldoutPlan | null,
  counted: (orders: number) => void,
): AsyncGenerator<string> {
  const before = readEnd(asOf);
  const stream = reader.query(
    longQuery(
      copyTo(
        namedSql(
          'stream-account.copy-orders',
          `copy (
      select o.customer_id, c.external_id, c.address_zip, c.address_country,
             (extract(epoch from o.order_date) * 1000)::bigint,
             o.order_amount_reporting, o.refunded_amount_reporting
        from "${schema}".orders o
        left join "${schema}".customers c on c.account_id = o.account_id and c.customer_id = o.customer_id
       where o.account_id = '${account}' and o.cancelled_at is null and o.customer_id is not null
         and o.order_date < '${before}'
       order by o.customer_id, o.order_date
    ) to stdout`,
        ),
      ),
    ),
  );
  const zones = new Map<string, string>();
  const asOfDays = new Map<string, number>();
  const zoneOf = (zip: string | null, country: string | null): string => {
    const key = `${zip ?? ''}\u0000${country ?? ''}`;
    let zone = zones.get(key);
    if (zone === undefined) {
      zone = zoneOfCustomer(zip, country, storeZone);
      if (zones.size >= 100_000) zones.clear(); // malformed ZIPs are unbounded; the real ones are not
      zones.set(key, zone);
    }
    return zone;
  };
  const asOfDayIn = (zone: string): number => {
    let day = asOfDays.get(zone);
    if (day === undefined) asOfDays.set(zone, (day = localDayOf(asOf, zone)));
    return day;
  };
  let days = new Int32Array(64);
  let amounts = new Float64Array(64);
  let n = 0;
  let customer = '';
  let externalId = '';
  let zone = storeZone;
  const numbers = zeroSummaryNumbers();
  const calibration = zeroSummaryNumbers();
  let out = '';
  const flush = () => {
    if (n === 0) return;
    const endDay = asOfDayIn(zone);
    // Durations in whole days (unit 1): AccountGroups and pass 2 divide by the model's unit.
    if (summarizeDays(days, amounts, n, endDay, 1, numbers)) {
      let orders = 0;
      for (let i = 0; i < n; i++) if (days[i]! <= endDay) orders++;
      counted(orders);
      groups.add(numbers);
      // summarizeDays sorted the days already: the calibration summary reads the same arrays.
      if (check && summarizeDays(days, amounts, n, endDay - check.days, 1, calibration)) {
        check.groups.add(
          calibration.frequency,
          calibration.recency / check.unitDays,
          calibration.T / check.unitDays,
          numbers.transactions - calibration.transactions,
        );
      }
      out +=
        `${customer}\t${externalId}\t${numbers.frequency}\t${numbers.recency}\t${numbers.T}\t` +
        `${numbers.monetaryValue}\t${numbers.totalRevenue}\n`;
    }
    n = 0;
  };
  const split = new LineSplitter();
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      split.push(chunk, (buf, start, end) => {
        const t1 = nextTab(buf, start, end);
        const t2 = nextTab(buf, t1 + 1, end);
        const t3 = nextTab(buf, t2 + 1, end);
        const t4 = nextTab(buf, t3 + 1, end);
        const t5 = nextTab(buf, t4 + 1, end);
        const t6 = nextTab(buf, t5 + 1, end);
        const id = buf.toString('latin1', start, t1);
        if (id !== customer) {
          flush();
          customer = id;
          // Kept in COPY text escaping: written back to COPY unchanged.
          externalId = buf.toString('utf8', t1 + 1, t2);
          const field = (from: number, to: number) => {
            const s = buf.toString('utf8', from, to);
            return s === '\\N' ? null : s;
          };
          zone = zoneOf(field(t2 + 1, t3), field(t3 + 1, t4));
        }
        if (n === days.length) {
          const grownDays = new Int32Array(2 * n);
          const grownAmounts = new Float64Array(2 * n);
          grownDays.set(days);
          grownAmounts.set(amounts);
          days = grownDays;
          amounts = grownAmounts;
        }
        days[n] = localDayOf(readInt(buf, t4 + 1, t5), zone);
        amounts[n++] = netOrderAmount(readDecimal(buf, t5 + 1, t6), readDecimal(buf, t6 + 1, end));
      });
      if (out.length >= STAGE_FLUSH_CHARS) {
        yield out;
        out = '';
      }
    }
  } finally {
    settleCopyOut(stream);
  }
  split.end();
  flush();
  if (out !== '') yield out;
}

/**
 * Pass 2 of a streamed recompute: reads the staged summaries back, scores them CHUNK_ROWS at a time
 * under `fit` (one `cache`, so each distinct history is modelled once), with their 90% intervals
 * when `intervals` is given (its own cache: once per distinct history too), and yields their rows of
 * analytics.customer_scores in COPY text. Each customer's holdout flag is `isHoldout`. When some
 * interval is not finite, the rest of the stage is only read (nothing more is scored or yielded) and
 * it throws {@link IntervalsNotFinite} at the end: the caller's partition is to be rolled back.
 */
export async function* scoredLines(
  reader: PoolClient,
  stage: string,
  account: string,
  fit: AccountFit,
  options: ScoreOptions,
  cache: ScoringCache,
  unitDays: number,
  intervals: IntervalScorer | null = null,
): AsyncGenerator<string> {
  const chunk = {
    frequency: new Float64Array(CHUNK_ROWS),
    recency: new Float64Array(CHUNK_ROWS),
    T: new Float64Array(CHUNK_ROWS),
    monetaryValue: new Float64Array(CHUNK_ROWS),
    totalRevenue: new Float64Array(CHUNK_ROWS),
    transactions: new Float64Array(CHUNK_ROWS),
  };
  let customerIds: string[] = [];
  let externalIds: (string | undefined)[] = [];
  let holdout: boolean[] = [];
  const score = (rows: number): string => {
    const columns = {
      frequency: chunk.frequency.subarray(0, rows),
      recency: chunk.recency.subarray(0, rows),
      T: chunk.T.subarray(0, rows),
      monetaryValue: chunk.monetaryValue.subarray(0, rows),
      totalRevenue: chunk.totalRevenue.subarray(0, rows),
      transactions: chunk.transactions.subarray(0, rows),
    };
    const scores = scoreWithFit(columns, fit, options, cache);
    const iv = intervals?.columns(columns, scores) ?? null;
    const text = scoreLines({
      scores,
      totalRevenue: columns.totalRevenue,
      customerIds,
      externalIds,
      holdout,
      // Once an interval was not finite this write is to be rolled back (below): no intervals, so the
      // stage is still read to its end and the reader stays usable.
      intervals: intervals?.allFinite ? iv : null,
    });
    customerIds = [];
    externalIds = [];
    holdout = [];
    return text;
  };
  const pending: string[] = [];
  await rawQuery(reader, 'stream-account.begin-read-stage', 'begin');
  try {
    await allowLongStatements(reader);
    const stream = reader.query(
      // Sorted by history: each distinct (x, t_x, T)'s customers come together, so the scoring and
      // interval caches model a history at most once here even when the account has more distinct
      // histories than the caches hold (in the staged order, each emptying of a cache made the
      // histories met later be modelled again: work that grew faster than the customers).
      longQuery(
        copyTo(
          namedSql(
            'stream-account.copy-stage-out',
            `copy (select * from analytics."${stage}" order by x, tx_days, t_days) to stdout`,
          ),
        ),
      ),
    );
    const split = new LineSplitter();
    let rows = 0;
    try {
      for await (const data of stream as AsyncIterable<Buffer>) {
        split.push(data, (buf, start, end) => {
          // This write is to be rolled back (an interval was not finite): drain the stage only.
          if (intervals && !intervals.allFinite) return;
          const t1 = nextTab(buf, start, end);
          const t2 = nextTab(buf, t1 + 1, end);
          const t3 = nextTab(buf, t2 + 1, end);
          const t4 = nextTab(buf, t3 + 1, end);
          const t5 = nextTab(buf, t4 + 1, end);
          const t6 = nextTab(buf, t5 + 1, end);
          const customerId = buf.toString('latin1', start, t1);
          const external = buf.toString('utf8', t1 + 1, t2);
          const x = readInt(buf, t2 + 1, t3);
          customerIds.push(customerId);
          externalIds.push(external === '\\N' ? undefined : external);
          holdout.push(isHoldout(account, customerId));
          chunk.frequency[rows] = x;
          chunk.recency[rows] = readInt(buf, t3 + 1, t4) / unitDays;
          chunk.T[rows] = readInt(buf, t4 + 1, t5) / unitDays;
          // Staged with String(number): Number() gives the same double back.
          chunk.monetaryValue[rows] = Number(buf.toString('latin1', t5 + 1, t6));
          chunk.totalRevenue[rows] = Number(buf.toString('latin1', t6 + 1, end));
          chunk.transactions[rows] = x + 1;
          if (++rows === CHUNK_ROWS) {
            pending.push(score(rows));
            rows = 0;
          }
        });
        while (pending.length > 0) yield pending.shift()!;
      }
    } finally {
      settleCopyOut(stream);
    }
    split.end();
    if (rows > 0 && (!intervals || intervals.allFinite)) yield score(rows);
  } finally {
    await rawQuery(reader, 'stream-account.end-read-stage', 'commit');
  }
  // At the end, the stage read to its end (the reader stays usable): the partition being built is
  // rolled back and the caller writes again with the scorer's fallback.
  if (intervals && !intervals.allFinite) throw new IntervalsNotFinite();
}

/**
 * Some customer's interval came out non-finite in the write phase (a parameter draw far out on a
 * ridge): the rows written are rolled back and written again with `IntervalScorer.fallback`. Not an
 * infrastructure failure: retrying the same write gives the same numbers.
 */
export class IntervalsNotFinite extends Error {
  override readonly name = 'IntervalsNotFinite';
  readonly retriable = false;
  constructor() {
    super('an interval of the account came out non-finite');
  }
}

/** Drops the staging table (a crash leaves it to the next recompute's `dropDetached`). */
export async function dropStage(client: PoolClient, stage: string): Promise<void> {
  await rawQuery(client, 'stream-account.drop-stage', `drop table if exists analytics."${stage}"`);
}
