import { to as copyTo } from 'pg-copy-streams';
import {
  CustomerDays,
  holdoutDays,
  isHoldout,
  netOrderAmount,
  splitCalibrationHoldout,
  toUtcDay,
  type HoldoutHistories,
  type SummaryColumns,
} from '@holdfast/analytics';
import {
  inTransaction,
  namedSql,
  rawQuery,
  type Pool,
  type PoolClient,
  type TransactionOptions,
} from '@holdfast/db';
import { recomputeDbOn } from '../recompute-database.js';
import { LineSplitter, nextTab, readDecimal, readInt } from './copy-text.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DAY_MS = 86_400_000;

/**
 * What the recompute reads of one account: row i of `summaries` is customer `customerIds[i]`. Columns
 * rather than an object per customer keep a million-customer account in about 100 MB.
 */
export interface AccountData {
  /** One summary per customer with a counted order (summarizeOrders semantics). */
  readonly summaries: SummaryColumns;
  readonly customerIds: readonly string[];
  /** Each row's external id, still in COPY text escaping (written back unchanged by COPY). */
  readonly externalIds: readonly (string | undefined)[];
  /** Orders counted (not cancelled, with a resolved customer, on or before the as-of day). */
  readonly orders: number;
  /** The customers in the universal holdout. */
  readonly holdout: Set<string>;
  /** Every order and customer row of the account in the snapshot read (a sync task's counters). */
  readonly snapshot: { readonly orders: number; readonly customers: number };
  /**
   * With `modelCheck`: the same orders split into a calibration period and the most recent weeks held
   * out (`holdoutDays`), for the model check; null when not asked or the history is too short.
   */
  readonly modelCheck: HoldoutHistories | null;
}

const NO_DATA: AccountData = Object.freeze({
  summaries: {
    frequency: new Float64Array(0),
    recency: new Float64Array(0),
    T: new Float64Array(0),
    monetaryValue: new Float64Array(0),
    totalRevenue: new Float64Array(0),
    transactions: new Float64Array(0),
  },
  customerIds: [],
  externalIds: [],
  orders: 0,
  holdout: new Set<string>(),
  snapshot: Object.freeze({ orders: 0, customers: 0 }),
  modelCheck: null,
});

/** COPY takes no parameters, so literals go in: only a checked UUID and an ISO instant. */
export function checkedAccountId(accountId: string): string {
  if (!UUID.test(accountId)) throw new Error(`invalid account id "${accountId}"`);
  return accountId.toLowerCase();
}

/** Both connections read one snapshot: the orders' transaction exports it, the customers' adopts it. */
const SNAPSHOT_READ: TransactionOptions = { isolation: 'repeatable read', readOnly: true };

/**
 * Reads one account from the read models: its orders summarised per customer as of `asOf`, its
 * customers' external ids and its holdout. Orders and customers are read at once on two connections
 * that share one snapshot (pg_export_snapshot), so both describe the same moment.
 *
 * - Net amount: analytics' netOrderAmount of the stored gross and refunds in the
 *   account's reporting currency (the read model's converted columns) (the rule lives there, not
 *   in this SQL); cancelled orders are left out, as summarizeOrders drops them.
 * - Orders without a resolved customer cannot be scored and are left out.
 * - Only orders on or before the as-of UTC day count; T is measured to that day (`unitDays` per unit).
 * - Orders stream in table order (ordering by customer would read the heap at random); the UTC day is
 *   computed by PostgreSQL, so no timestamp is parsed here. The holdout hash of each new customer is
 *   computed while the next rows are still on their way.
 * - The customers' rows arrive meanwhile and are kept as the raw COPY bytes; once the orders are in,
 *   each is matched to its customer. (A Map by customer id beside the orders' own index would hold a
 *   second copy of a million ids.)
 *
 * Returns no customers when the read models do not exist yet (the projector has not started).
 *
 * The snapshot export and adoption and both COPY streams are raw SQL, named `load-account-orders.*`
 * (COPY takes no parameters and kysely has no COPY); the snapshot's counts are kysely.
 */
export async function readAccount(
  pool: Pool,
  readModelSchema: string,
  accountId: string,
  asOf: Date,
  unitDays: number,
  modelCheck = false,
): Promise<AccountData> {
  const account = checkedAccountId(accountId);
  const orders = await pool.connect();
  const customers = await pool.connect();
  try {
    const read = await inTransaction(
      orders,
      async () => {
        const { rows } = await rawQuery<{ snapshot: string; ok: boolean }>(
          orders,
          'load-account-orders.export-snapshot',
          `select pg_export_snapshot() as snapshot,
                  to_regclass($1) is not null and to_regclass($2) is not null as ok`,
          [`"${readModelSchema}".orders`, `"${readModelSchema}".customers`],
        );
        if (!rows[0]?.ok) return null;
        const snapshot = rows[0].snapshot;
        // Counted in the snapshot that is scored, so a task's counters describe exactly what it scored.
        const counted = await recomputeDbOn(orders)
          .withSchema(readModelSchema)
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
        const [days, customerRows] = await inTransaction(
          customers,
          async () => {
            await rawQuery(
              customers,
              'load-account-orders.set-snapshot',
              `set transaction snapshot '${snapshot}'`,
            );
            // Plain scans: JIT compilation costs about a second here and saves less.
            await Promise.all([
              rawQuery(orders, 'load-account-orders.jit-off', 'set local jit = off'),
              rawQuery(customers, 'load-account-orders.jit-off', 'set local jit = off'),
            ]);
            return Promise.all([
              streamOrders(orders, readModelSchema, account, asOf),
              collectCopy(customers, readModelSchema, account),
            ]);
          },
          SNAPSHOT_READ,
        );
        return { days, customerRows, counted };
      },
      SNAPSHOT_READ,
    );
    if (!read) return NO_DATA;
    const { acc, holdout } = read.days;
    const externalIdOf = externalIdsByCustomer(acc, read.customerRows);
    const { columns, customer } = acc.columns(toUtcDay(asOf), unitDays);
    const customerIds = Array.from(customer, (c) => acc.id(c));
    const externalIds = Array.from(customer, (c) => externalIdOf[c]);
    let historyDays = 0;
    for (let i = 0; i < columns.T.length; i++) historyDays = Math.max(historyDays, columns.T[i]! * unitDays);
    const days = modelCheck ? holdoutDays(Math.round(historyDays)) : null;
    const asOfDay = toUtcDay(asOf);
    return {
      summaries: columns,
      customerIds,
      externalIds,
      orders: acc.orders,
      holdout,
      snapshot: { orders: read.counted.orders, customers: read.counted.customers },
      modelCheck: days === null ? null : splitCalibrationHoldout(acc, asOfDay - days, asOfDay, unitDays),
    };
  } finally {
    orders.release();
    customers.release();
  }
}

async function streamOrders(
  client: PoolClient,
  schema: string,
  account: string,
  asOf: Date,
): Promise<{ acc: CustomerDays; holdout: Set<string> }> {
  const before = new Date((toUtcDay(asOf) + 1) * DAY_MS).toISOString();
  const acc = new CustomerDays();
  const holdout = new Set<string>();
  const split = new LineSplitter();
  const stream = client.query(
    copyTo(
      namedSql(
        'load-account-orders.copy-orders',
        `copy (
      select customer_id, (order_date at time zone 'UTC')::date - date '1970-01-01',
             order_amount_reporting, refunded_amount_reporting
        from "${schema}".orders
       where account_id = '${account}' and cancelled_at is null and customer_id is not null
         and order_date < '${before}'
    ) to stdout`,
      ),
    ),
  );
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    split.push(chunk, (buf, start, end) => {
      const t1 = nextTab(buf, start, end);
      const t2 = nextTab(buf, t1 + 1, end);
      const t3 = nextTab(buf, t2 + 1, end);
      const customerId = buf.toString('latin1', start, t1);
      const net = netOrderAmount(readDecimal(buf, t2 + 1, t3), readDecimal(buf, t3 + 1, end));
      if (acc.add(customerId, readInt(buf, t1 + 1, t2), net)) {
        if (isHoldout(account, customerId)) holdout.add(customerId);
      }
    });
  }
  split.end();
  return { acc, holdout };
}

/** The account's (customer_id, external_id) rows as the raw COPY text chunks. */
async function collectCopy(client: PoolClient, schema: string, account: string): Promise<Buffer[]> {
  const chunks: Buffer[] = [];
  const stream = client.query(
    copyTo(
      namedSql(
        'load-account-orders.copy-external-ids',
        `copy (
      select customer_id, external_id from "${schema}".customers
       where account_id = '${account}' and external_id is not null
    ) to stdout`,
      ),
    ),
  );
  for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk);
  return chunks;
}

/** External ids by customer number of `acc` (customers without orders are of no use and dropped). */
function externalIdsByCustomer(acc: CustomerDays, chunks: readonly Buffer[]): (string | undefined)[] {
  const out = new Array<string | undefined>(acc.customers).fill(undefined);
  const split = new LineSplitter();
  for (const chunk of chunks) {
    split.push(chunk, (buf, start, end) => {
      const tab = nextTab(buf, start, end);
      const c = acc.numberOf(buf.toString('latin1', start, tab));
      if (c !== undefined) out[c] = buf.toString('utf8', tab + 1, end);
    });
  }
  split.end();
  return out;
}
