// A three-broker KRaft cluster (infra/lib/kafka.mjs, replication 3, min.insync.replicas 2) on a
// PRIVATE stack, with two gateways and two projectors in one consumer group.
//
// `runClusterFaults` (tests/cluster.e2e.test.ts): orders with re-posts stream through both gateways
// for several accounts (spread over every partition) while the leader of a commerce partition is
// SIGKILLed and later restarted, and one projector is SIGKILLed for good; every read-model row is then
// compared with the independent merge model (bench/merge-model.ts), and the surviving projector must
// own every partition.
//
// `npm run bench -- cluster [--orders N] [--accounts A] [--port-base P]`: the backfill of A accounts
// (N orders each) through two gateways, then its projection with one and with two projectors.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AssignerProtocol, Kafka, logLevel } from 'kafkajs';
import type { Kysely } from 'kysely';
import pg from 'pg';
import { createAccount, mintApiKey } from '@holdfast/control-plane';
import { createDb, migrateToLatest } from '@holdfast/postgres';
import { createKafka, ensureTopics, partitionOfKey, topicName } from '@holdfast/kafka';
import { silentLogger } from '@holdfast/platform';
import { DEFAULT_READ_MODEL_SCHEMA, ensureReadModelSchema } from '@holdfast/read-models';
import { MixedLoad, RetryingClient, type Credentials, type LoadOptions } from './chaos-load.js';
import { PrivateStack, ServiceSupervisor, type ServiceExit } from './faults.js';
import { generateOrders } from './generate-orders.js';
import { compareReadModels, type CustomerRowRead, type Finding, type OrderRowRead } from './merge-model.js';
import { report } from './report.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const PARTITIONS = 4;
const BROKERS = 3;
const REPLICATION = { replicationFactor: 3, minInsyncReplicas: 2 };

// The group, metadata and log inspections below are a test's view of the cluster, read through a
// plain kafkajs client (an implementation independent of the adapter under test).
type Inspector = Kafka;
type Admin = ReturnType<Inspector['admin']>;
const inspector = (brokers: string[]): Inspector =>
  new Kafka({ clientId: 'cluster-bench-inspect', brokers, logLevel: logLevel.NOTHING });

/** The partition the producers choose for an account (the Java-compatible murmur2 partitioner). */
function partitionOf(accountId: string): number {
  return partitionOfKey(accountId, PARTITIONS);
}

/** Accounts until every partition has at least one (and at least `n` in all). */
async function accountsOverEveryPartition(
  db: ReturnType<typeof createDb>,
  n: number,
): Promise<{ accountId: string; key: string; partition: number }[]> {
  const out: { accountId: string; key: string; partition: number }[] = [];
  const covered = new Set<number>();
  for (let i = 0; i < 64 && (out.length < n || covered.size < PARTITIONS); i++) {
    const { id: accountId } = await createAccount(db, {
      name: `cluster-${i}`,
      storefrontDomain: 'shop.example.com',
    });
    const partition = partitionOf(accountId);
    // Past n accounts only one that covers a new partition is kept.
    if (out.length >= n && covered.has(partition)) continue;
    covered.add(partition);
    out.push({ accountId, key: (await mintApiKey(db, accountId, 'ingest_live')).key, partition });
  }
  return out;
}

/** Members of the projector's consumer group and the commerce partitions each holds. */
export async function groupAssignment(admin: Admin, groupId: string, topic: string): Promise<number[][]> {
  const { groups } = await admin.describeGroups([groupId]);
  const g = groups[0];
  if (!g || g.state !== 'Stable') return [];
  return g.members.map((m) => {
    const a = AssignerProtocol.MemberAssignment.decode(m.memberAssignment);
    return [...(a?.assignment[topic] ?? [])].sort((x, y) => x - y);
  });
}

async function waitAssignment(
  admin: Admin,
  groupId: string,
  topic: string,
  ok: (members: number[][]) => boolean,
  ms: number,
): Promise<number[][] | null> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const m = await groupAssignment(admin, groupId, topic).catch(() => []);
    if (ok(m)) return m;
    await sleep(250);
  }
  return null;
}

/** The node (kafka-i) leading the first partition of the topic. */
async function leaderOf(admin: Admin, topic: string, partition: number): Promise<number> {
  const md = await admin.fetchTopicMetadata({ topics: [topic] });
  return md.topics[0]!.partitions.find((p) => p.partitionId === partition)!.leader;
}

/** Records per key on `topic` from offset 0 to the high watermarks, read_committed or not. */
async function countByKey(
  kafka: Inspector,
  topic: string,
  readUncommitted: boolean,
): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  let seen = 0;
  const consumer = kafka.consumer({
    groupId: `cluster-count-${Date.now()}-${readUncommitted}`,
    readUncommitted,
    maxWaitTimeInMs: 200,
  });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    eachBatch: ({ batch }) => {
      for (const m of batch.messages) {
        const k = m.key?.toString() ?? '';
        counts.set(k, (counts.get(k) ?? 0) + 1);
        seen++;
      }
      return Promise.resolve();
    },
  });
  // Done once nothing new arrived for 4 s after the first records (or after 60 s).
  const until = Date.now() + 60_000;
  let last = -1;
  let since = Date.now();
  while (Date.now() < until) {
    await sleep(250);
    if (seen !== last) {
      last = seen;
      since = Date.now();
    } else if (seen > 0 && Date.now() - since >= 4000) break;
  }
  await consumer.disconnect();
  return counts;
}

export interface ClusterFaultOptions {
  accounts: number;
  load: LoadOptions;
  settleS: number;
  brokerDownS: number;
  portBase: number;
  log: (m: string) => void;
}

export interface ClusterFaultResult {
  accounts: {
    accountId: string;
    partition: number;
    orders: number;
    reposts: number;
    /** Records of the account on holdfast.commerce, committed and all (aborted included): counted
     * only when there are findings, to tell a batch missing from the log from one the projector skipped. */
    logCommitted?: number;
    logAll?: number;
  }[];
  findings: Finding[];
  deadLetters: string[];
  exits: ServiceExit[];
  /** Commerce partitions per projector before the kill, and after it. */
  assignmentBefore: number[][];
  assignmentAfter: number[][] | null;
  /** Seconds from the projector's SIGKILL until the survivor held every partition. */
  takeoverS: number | null;
  killedBroker: string;
  requests: Record<
    string,
    { ok: number; throttled: number; failedAttempts: number; gaveUp: number; rejected: number }
  >;
  logDir: string;
}

export async function runClusterFaults(o: ClusterFaultOptions): Promise<ClusterFaultResult> {
  const prefix = 'cluster-';
  o.log('starting a private three-broker cluster, registry and PostgreSQL ...');
  const stack = await PrivateStack.start((m) => o.log(`[infra] ${m}`), o.portBase, BROKERS);
  const logDir = mkdtempSync(join(tmpdir(), 'holdfast-cluster-logs-'));
  const pool = new pg.Pool({ connectionString: stack.env.DATABASE_URL, max: 3 });
  pool.on('error', () => {});
  const sup = new ServiceSupervisor(
    {
      ...stack.env,
      HOLDFAST_TOPIC_PREFIX: prefix,
      HOLDFAST_PARTITIONS: String(PARTITIONS),
      LOG_LEVEL: 'warn',
      HOLDFAST_SESSION_TIMEOUT_MS: '6000',
    },
    logDir,
  );
  const kafka = inspector(stack.env.KAFKA_BROKERS.split(','));
  const admin = kafka.admin();
  const topicAdmin = createKafka(stack.env.KAFKA_BROKERS.split(','), 'cluster-bench', silentLogger).admin();
  const loads: MixedLoad[] = [];
  const clients: RetryingClient[] = [];
  // A run with findings keeps the brokers' logs and the database (to read the partition's records).
  let failed = false;
  try {
    const db = createDb(pool);
    await migrateToLatest(db as Kysely<unknown>);
    // What `holdfast migrate` does: the gateways' readiness waits for the read models.
    await ensureReadModelSchema(pool, DEFAULT_READ_MODEL_SCHEMA);
    await admin.connect();
    await topicAdmin.connect();
    await ensureTopics(topicAdmin, prefix, PARTITIONS, REPLICATION);
    await topicAdmin.disconnect();
    const commerce = topicName(prefix, 'holdfast.commerce');
    const groupId = `${prefix}holdfast.projector`;
    const accounts = await accountsOverEveryPartition(db, o.accounts);
    o.log(`accounts on partitions ${accounts.map((a) => a.partition).join(', ')}`);
    await sup.start('gateway');
    await sup.start('gateway', {}, 'gateway-2');
    await sup.start('projector');
    await sup.start('projector', {}, 'projector-2');
    const assignmentBefore =
      (await waitAssignment(
        admin,
        groupId,
        commerce,
        (m) => m.length === 2 && m.every((p) => p.length > 0),
        60_000,
      )) ?? (await groupAssignment(admin, groupId, commerce));
    o.log(`projector group: ${JSON.stringify(assignmentBefore)}`);
    for (const gw of ['gateway', 'gateway-2'])
      clients.push(new RetryingClient(`http://127.0.0.1:${sup.port(gw)}`, 300_000, 30_000));
    let phase = 0;
    accounts.forEach((a, i) => {
      const creds: Credentials = {
        accountId: a.accountId,
        ordersKey: a.key,
        customersKey: a.key,
        webhookKey: a.key,
        pixelKey: '',
        origin: '',
      };
      loads.push(new MixedLoad(clients[i % clients.length]!, creds, o.load, () => phase));
    });
    for (const l of loads) l.start();
    await sleep(o.settleS * 1000);

    // The leader of a partition that carries an account: its producers and the projector's fetches
    // must move to the new leader.
    const node = await leaderOf(admin, commerce, accounts[0]!.partition);
    const killedBroker = `kafka-${node}` as const;
    phase = 1;
    o.log(`SIGKILL ${killedBroker} (leader of ${commerce}/${accounts[0]!.partition})`);
    await stack.kill(killedBroker);
    await sleep(o.settleS * 1000);

    phase = 2;
    o.log('SIGKILL projector-2 (not restarted)');
    const killedAt = Date.now();
    sup.kill('projector-2', { restart: false });
    const assignmentAfter = await waitAssignment(
      admin,
      groupId,
      commerce,
      (m) => m.length === 1 && m[0]!.length === PARTITIONS,
      60_000,
    );
    const takeoverS = assignmentAfter ? (Date.now() - killedAt) / 1000 : null;
    o.log(`survivor holds ${JSON.stringify(assignmentAfter)} after ${takeoverS} s`);
    await sleep(Math.max(0, o.brokerDownS * 1000 - (Date.now() - killedAt)));

    phase = 3;
    o.log(`restarting ${killedBroker}`);
    await stack.restore();
    await sleep(o.settleS * 1000);
    o.log('stopping the load; waiting for the projector to catch up ...');
    await Promise.all(loads.map((l) => l.stop()));

    const wanted = loads.reduce((s, l) => s + l.model.orders.size, 0);
    const until = Date.now() + 240_000;
    while (Date.now() < until) {
      const { rows } = await pool.query<{ n: number }>('select count(*)::int as n from read_models.orders');
      if (rows[0]!.n >= wanted) break;
      await sleep(500);
    }
    // Re-posts may still be folding in after the count is reached: let the checkpoints settle.
    await sleep(3000);

    const findings: Finding[] = [];
    for (const [i, a] of accounts.entries()) {
      const orders = await pool.query<OrderRowRead>(
        `select order_id, external_customer_id, customer_id::text, order_date, order_amount::text, product_name,
                email, source, currency, refunded_amount::text, cancelled_at, discount_total::text
           from read_models.orders where account_id = $1`,
        [a.accountId],
      );
      const customers = await pool.query<CustomerRowRead>(
        `select customer_id::text, external_id, email, name, address_street, address_city, address_state,
                address_zip, address_country, consent_marketing_email, consent_sms, consent_suppressed,
                consent_bounced, subscription_status, subscription_started_at
           from read_models.customers where account_id = $1`,
        [a.accountId],
      );
      for (const f of compareReadModels(loads[i]!.model, orders.rows, customers.rows))
        findings.push({ ...f, key: `${a.accountId.slice(0, 8)} ${f.key}` });
    }
    const inLog = findings.length
      ? {
          committed: await countByKey(kafka, commerce, false),
          all: await countByKey(kafka, commerce, true),
        }
      : undefined;
    const dead = await pool.query<{ reason: string }>('select reason from read_models.dead_letters');
    failed = findings.length > 0 || dead.rows.length > 0;
    const requests: ClusterFaultResult['requests'] = {};
    clients.forEach((c, i) => {
      for (const [route, s] of c.stats)
        requests[`gateway ${i + 1} ${route}`] = {
          ok: s.ok,
          throttled: s.throttled,
          failedAttempts: s.failedAttempts,
          gaveUp: s.gaveUp,
          rejected: s.rejected,
        };
    });
    return {
      accounts: accounts.map((a, i) => ({
        accountId: a.accountId,
        partition: a.partition,
        orders: loads[i]!.counts.orders,
        reposts: loads[i]!.counts.reposts,
        ...(inLog
          ? {
              logCommitted: inLog.committed.get(a.accountId) ?? 0,
              logAll: inLog.all.get(a.accountId) ?? 0,
            }
          : {}),
      })),
      findings,
      deadLetters: dead.rows.map((r) => r.reason),
      exits: sup.exits,
      assignmentBefore,
      assignmentAfter,
      takeoverS,
      killedBroker,
      requests,
      logDir,
    };
  } finally {
    for (const c of clients) c.abandon = true;
    await Promise.all(loads.map((l) => l.stop().catch(() => {})));
    await admin.disconnect().catch(() => {});
    await sup.stopAll();
    await pool.end().catch(() => {});
    await stack.close({ keepData: failed });
  }
}

/** The e2e run's load: orders with re-posts only (the merge rules of orders), per account. */
export function clusterLoad(ordersPerSecond: number, maxOrders: number): LoadOptions {
  return {
    ordersPerSecond,
    ordersPerBatch: 200,
    customersA: 200,
    customersB: 20,
    customersO: 400,
    customersPerBatch: 0,
    customerBatchesPerSecond: 0,
    webhooksPerSecond: 0,
    pixelRequestsPerSecond: 0,
    pixelEventsPerRequest: 0,
    maxOrders,
  };
}

export function formatClusterFaults(r: ClusterFaultResult): string {
  const out = [
    `accounts: ${r.accounts
      .map(
        (a) =>
          `p${a.partition}: ${a.orders} orders + ${a.reposts} re-posts acknowledged` +
          (a.logCommitted === undefined
            ? ''
            : ` (in the log: ${a.logCommitted} committed records, ${a.logAll} with aborted ones)`),
      )
      .join('; ')}`,
    `killed broker: ${r.killedBroker}; projector group before: ${JSON.stringify(r.assignmentBefore)}, after: ${JSON.stringify(r.assignmentAfter)} (${r.takeoverS ?? 'never'} s)`,
    ...Object.entries(r.requests).map(
      ([k, s]) =>
        `  ${k}: ${s.ok} ok, ${s.throttled} × 429, ${s.failedAttempts} failed attempts (retried), ${s.gaveUp} given up, ${s.rejected} rejected`,
    ),
    `findings: ${r.findings.length}`,
    ...r.findings.slice(0, 15).map((f) => `  ${f.kind} ${f.table} ${f.key}: ${f.detail}`),
    `dead letters: ${r.deadLetters.length} ${[...new Set(r.deadLetters)].slice(0, 3).join(' | ')}`,
    `unplanned exits: ${r.exits
      .filter((e) => !e.planned)
      .map((e) => `${e.instance}: ${e.reason}`)
      .join('; ')}`,
    `service logs: ${r.logDir}`,
  ];
  return out.join('\n');
}

// ---------------------------------------------------------------------------------------------------
// The bench: throughput of the backfill through two gateways, then of its projection with one and
// with two projectors, on the same cluster.

interface PhaseFigures {
  projectors: number;
  orders: number;
  /** Records appended to holdfast.commerce (orders, re-posts included). */
  records: number;
  /** Bytes per order row in PostgreSQL (orders with its indexes), per customer row, and per commerce
   * record in Kafka (one copy; the cluster keeps three). */
  pgBytesPerOrder: number;
  pgBytesPerCustomer: number;
  kafkaBytesPerRecord: number;
  gatewayOrdersPerS: number;
  projectOrdersPerS: number;
  load: number;
}

/** Sends every account's orders (returns the distinct orders) in 5,000-row batches, one stream per account, spread over the gateways. */
async function backfill(urls: string[], accounts: { key: string }[], perAccount: number): Promise<number> {
  const streams = accounts.map(async (a, i) => {
    const client = new RetryingClient(urls[i % urls.length]!, 300_000, 120_000);
    let batch: unknown[] = [];
    const ids = new Set<unknown>();
    const flush = async () => {
      if (
        !(await client.post(
          'orders',
          '/ingest/orders',
          { orders: batch },
          { authorization: `Bearer ${a.key}` },
        ))
      )
        throw new Error('a backfill batch was rejected or given up');
      batch = [];
    };
    for (const o of generateOrders(perAccount, { seed: i + 1 })) {
      batch.push(o);
      ids.add(o.order_id);
      if (batch.length === 5000) await flush();
    }
    if (batch.length) await flush();
    // Re-posts of an order make no new row: the distinct ids are what the projection must show.
    return ids.size;
  });
  return (await Promise.all(streams)).reduce((s, n) => s + n, 0);
}

async function benchPhase(
  stack: PrivateStack,
  projectors: number,
  accountsN: number,
  perAccount: number,
  log: (m: string) => void,
): Promise<PhaseFigures> {
  const prefix = `cluster-p${projectors}-${Date.now().toString(36)}-`;
  const schema = `read_models_p${projectors}`;
  const pool = new pg.Pool({ connectionString: stack.env.DATABASE_URL, max: 3 });
  const logDir = mkdtempSync(join(tmpdir(), 'holdfast-cluster-bench-'));
  const env: Record<string, string> = {
    ...stack.env,
    HOLDFAST_TOPIC_PREFIX: prefix,
    HOLDFAST_PARTITIONS: String(PARTITIONS),
    HOLDFAST_READ_SCHEMA: schema,
    LOG_LEVEL: 'warn',
  };
  const sup = new ServiceSupervisor(env, logDir);
  const kafka = inspector(stack.env.KAFKA_BROKERS.split(','));
  const admin = kafka.admin();
  const topicAdmin = createKafka(stack.env.KAFKA_BROKERS.split(','), 'cluster-bench', silentLogger).admin();
  try {
    const db = createDb(pool);
    await migrateToLatest(db as Kysely<unknown>);
    // What `holdfast migrate` does: the gateways' readiness waits for the read models.
    await ensureReadModelSchema(pool, schema);
    await admin.connect();
    await topicAdmin.connect();
    await ensureTopics(topicAdmin, prefix, PARTITIONS, REPLICATION);
    await topicAdmin.disconnect();
    const accounts = await accountsOverEveryPartition(db, accountsN);
    await sup.start('gateway');
    await sup.start('gateway', {}, 'gateway-2');
    log(
      `${projectors} projector(s): backfilling ${accounts.length} accounts × ${perAccount} orders through 2 gateways ...`,
    );
    const t0 = performance.now();
    const sent = await backfill(
      ['gateway', 'gateway-2'].map((g) => `http://127.0.0.1:${sup.port(g)}`),
      accounts,
      perAccount,
    );
    const gatewayOrdersPerS = sent / ((performance.now() - t0) / 1000);
    await sup.stopAll();
    // The projectors start on a full log: their rate is measured between 10 % and 90 % of it.
    const psup = new ServiceSupervisor(env, logDir);
    const starts = [psup.start('projector')];
    for (let i = 2; i <= projectors; i++) starts.push(psup.start('projector', {}, `projector-${i}`));
    let total = 0;
    const samples: { at: number; n: number }[] = [];
    const until = Date.now() + 900_000;
    while (Date.now() < until) {
      const r = await pool
        .query<{ n: number }>(`select count(*)::int as n from ${schema}.orders`)
        .catch(() => ({ rows: [{ n: 0 }] }));
      total = r.rows[0]!.n;
      samples.push({ at: performance.now(), n: total });
      if (total >= sent) break;
      await sleep(250);
    }
    await Promise.all(starts);
    await psup.stopAll();
    const lo = samples.find((s) => s.n >= sent * 0.1);
    const hi = samples.find((s) => s.n >= sent * 0.9);
    const projectOrdersPerS = lo && hi && hi.at > lo.at ? (hi.n - lo.n) / ((hi.at - lo.at) / 1000) : NaN;
    const load = Math.round((await import('node:os')).loadavg()[0]! * 100) / 100;
    const sizes = await pool.query<{ o: number; c: number }>(
      `select pg_total_relation_size('${schema}.orders')::float8 / greatest((select count(*) from ${schema}.orders), 1) as o,
              pg_total_relation_size('${schema}.customers')::float8 / greatest((select count(*) from ${schema}.customers), 1) as c`,
    );
    const records = accounts.length * perAccount;
    const kafkaBytesPerRecord = stack.kafkaBytes(topicName(prefix, 'holdfast.commerce')) / BROKERS / records;
    log(
      `${projectors} projector(s): gateways ${Math.round(gatewayOrdersPerS)} orders/s, projection ${Math.round(projectOrdersPerS)} orders/s (load ${load})`,
    );
    return {
      projectors,
      orders: sent,
      records,
      pgBytesPerOrder: sizes.rows[0]!.o,
      pgBytesPerCustomer: sizes.rows[0]!.c,
      kafkaBytesPerRecord,
      gatewayOrdersPerS,
      projectOrdersPerS,
      load,
    };
  } finally {
    await sup.stopAll();
    await admin.disconnect().catch(() => {});
    await pool.end().catch(() => {});
  }
}

export async function benchCluster(args: Record<string, string>): Promise<void> {
  const perAccount = Number(args.orders ?? 50_000);
  const accountsN = Number(args.accounts ?? 4);
  const log = (m: string) => console.error(`[cluster] ${m}`);
  const stack = await PrivateStack.start(
    (m) => log(`[infra] ${m}`),
    Number(args['port-base'] ?? 19440),
    BROKERS,
  );
  try {
    const phases: PhaseFigures[] = [];
    for (const n of [1, 2]) phases.push(await benchPhase(stack, n, accountsN, perAccount, log));
    const [one, two] = phases as [PhaseFigures, PhaseFigures];
    report(
      'cluster',
      {
        brokers: BROKERS,
        partitions: PARTITIONS,
        accounts: accountsN,
        orders: one.orders,
        gateway_orders_per_s_p1: Math.round(one.gatewayOrdersPerS),
        gateway_orders_per_s_p2: Math.round(two.gatewayOrdersPerS),
        project_orders_per_s_1: Math.round(one.projectOrdersPerS),
        project_orders_per_s_2: Math.round(two.projectOrdersPerS),
        loads: `${one.load} ${two.load}`,
        pg_bytes_per_order: Math.round(one.pgBytesPerOrder),
        pg_bytes_per_customer: Math.round(one.pgBytesPerCustomer),
        kafka_bytes_per_record: Math.round(one.kafkaBytesPerRecord),
      },
      [
        ['brokers / partitions / replication', `${BROKERS} / ${PARTITIONS} / 3 (min.insync 2)`],
        ['orders (accounts)', `${one.orders} (${accountsN}+)`],
        [
          'bytes: PostgreSQL per order / per customer, Kafka per record (one copy)',
          `${Math.round(one.pgBytesPerOrder)} / ${Math.round(one.pgBytesPerCustomer)} / ${Math.round(one.kafkaBytesPerRecord)}`,
        ],
        ...phases.flatMap((p): [string, string][] => [
          [
            `backfill through 2 gateways, orders/s (run ${p.projectors})`,
            `${Math.round(p.gatewayOrdersPerS)}`,
          ],
          [
            `projection with ${p.projectors} projector(s), orders/s`,
            `${Math.round(p.projectOrdersPerS)} (load ${p.load})`,
          ],
        ]),
      ],
    );
  } finally {
    await stack.close();
  }
}
