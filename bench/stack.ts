// The real stack for end-to-end benchmarks: `npm run infra:up`'s services, a database and a topic
// prefix of the benchmark's own (dropped afterwards), and Holdfast services started as processes.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import type { Kysely } from 'kysely';
import pg from 'pg';
import { createAccount, mintApiKey } from '@holdfast/control-plane';
import { createDb, createPool, migrateToLatest, type Database } from '@holdfast/postgres';
import { createKafka, ensureTopics } from '@holdfast/kafka';
import { silentLogger } from '@holdfast/platform';
import { loadSettings } from '../infra/lib/settings.mjs';
import { up } from '../infra/lib/stack.mjs';
import { pidsMatching } from './rss.js';

export interface BenchStack {
  readonly env: Record<string, string>;
  readonly pool: pg.Pool;
  readonly db: Kysely<Database>;
  readonly prefix: string;
  readonly children: Map<string, ChildProcess>;
  startService(
    name: 'gateway' | 'projector' | 'recompute' | 'dispatcher',
    extra?: Record<string, string>,
    nodeArgs?: readonly string[],
    /** The entry module (default `services/<name>/src/main.ts`): another commit's copy, for side-by-side runs. */
    entry?: string,
  ): Promise<number>;
  account(): Promise<{ accountId: string; key: string }>;
  pids(): Record<string, () => number[]>;
  close(): Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

async function waitHttp(url: string, ms = 120_000): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      /* not yet */
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${url} did not answer within ${ms / 1000} s`);
}

export async function benchStack(partitions = 4): Promise<BenchStack> {
  const stack = await up(loadSettings(), (m) => console.error(`[infra] ${m}`));
  const id = `${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
  const name = `holdfast_bench_${id}`;
  const admin = new URL(stack.DATABASE_URL);
  admin.pathname = '/postgres';
  const c = new pg.Client({ connectionString: admin.toString() });
  await c.connect();
  await c.query(`create database "${name}"`);
  await c.end();
  const url = new URL(stack.DATABASE_URL);
  url.pathname = `/${name}`;
  const prefix = `bench-${id}-`;
  const env = {
    DATABASE_URL: url.toString(),
    KAFKA_BROKERS: stack.KAFKA_BROKERS,
    SCHEMA_REGISTRY_URL: stack.SCHEMA_REGISTRY_URL,
    HOLDFAST_TOPIC_PREFIX: prefix,
    HOLDFAST_PARTITIONS: String(partitions),
    LOG_LEVEL: 'warn',
  };
  const pool = createPool(env.DATABASE_URL, 'bench', 4);
  const db = createDb(pool);
  await migrateToLatest(db as Kysely<unknown>);
  const kafka = createKafka(stack.KAFKA_BROKERS.split(','), 'bench', silentLogger);
  const ka = kafka.admin();
  await ka.connect();
  await ensureTopics(ka, prefix, partitions);
  await ka.disconnect();
  const children = new Map<string, ChildProcess>();

  return {
    env,
    pool,
    db,
    prefix,
    children,
    async startService(svc, extra = {}, nodeArgs = [], entry = `services/${svc}/src/main.ts`) {
      const port = await freePort();
      // Every service's /readyz answers on its ops listener (the gateway's is apart from PORT).
      const opsPort = svc === 'gateway' || svc === 'recompute' ? await freePort() : port;
      const child = spawn(process.execPath, [...nodeArgs, '--conditions=source', '--import', 'tsx', entry], {
        env: { ...process.env, ...env, PORT: String(port), HOLDFAST_OPS_PORT: String(opsPort), ...extra },
        stdio: ['ignore', 'inherit', 'inherit'],
      });
      children.set(entry === `services/${svc}/src/main.ts` ? svc : `${svc}@${entry}`, child);
      await waitHttp(`http://127.0.0.1:${opsPort}/readyz`);
      return port;
    },
    async account() {
      const { id: accountId } = await createAccount(db, {
        name: 'bench',
        storefrontDomain: 'shop.example.com',
      });
      const { key } = await mintApiKey(db, accountId, 'ingest_live');
      return { accountId, key };
    },
    pids() {
      const groups: Record<string, () => number[]> = {};
      for (const [svc, child] of children)
        groups[svc] = () => (child.exitCode === null && child.pid ? [child.pid] : []);
      groups.kafka = () => pidsMatching('kafka.Kafka');
      groups.registry = () => pidsMatching('apicurio-registry');
      groups.postgres = () => pidsMatching('postgres:').concat(pidsMatching('bin/postgres'));
      groups.bench = () => [process.pid];
      return groups;
    },
    async close() {
      for (const child of children.values()) child.kill('SIGTERM');
      await Promise.all(
        [...children.values()].map((ch) =>
          ch.exitCode !== null ? Promise.resolve() : new Promise((r) => ch.once('exit', r)),
        ),
      );
      await db.destroy();
      const d = new pg.Client({ connectionString: admin.toString() });
      await d.connect();
      await d.query(`drop database if exists "${name}" with (force)`);
      await d.end();
      const ka2 = kafka.admin();
      await ka2.connect();
      const topics = (await ka2.listTopics()).filter((t) => t.startsWith(prefix));
      if (topics.length) await ka2.deleteTopics(topics);
      await ka2.disconnect();
    },
  };
}
