// Where the benchmark runs: the stack of `npm start` (env vars win, else ~/.cache/holdfast/run/env.json),
// in a database and topic prefix of its own that are dropped afterwards.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export interface BenchStack {
  readonly databaseUrl: string;
  readonly brokers: string[];
  readonly registryUrl: string;
  readonly prefix: string;
  drop(): Promise<void>;
}

function stackEnv(): Record<string, string | undefined> {
  try {
    const dir = process.env.HOLDFAST_CACHE ?? join(homedir(), '.cache', 'holdfast');
    return {
      ...(JSON.parse(readFileSync(join(dir, 'run', 'env.json'), 'utf8')) as Record<string, string>),
      ...process.env,
    };
  } catch {
    return process.env;
  }
}

export async function benchStack(): Promise<BenchStack> {
  const env = stackEnv();
  if (!env.DATABASE_URL) throw new Error('DATABASE_URL is not set and no stack is running (npm start)');
  const id = `${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
  const admin = new URL(env.DATABASE_URL);
  admin.pathname = '/postgres';
  const name = `holdfast_bench_${id}`;
  const c = new pg.Client({ connectionString: admin.toString() });
  await c.connect();
  await c.query(`create database "${name}"`);
  await c.end();
  const url = new URL(env.DATABASE_URL);
  url.pathname = `/${name}`;
  return {
    databaseUrl: url.toString(),
    brokers: (env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(','),
    registryUrl: env.SCHEMA_REGISTRY_URL ?? 'http://127.0.0.1:8081/apis/ccompat/v7',
    prefix: `bench-${id}-`,
    drop: async () => {
      const d = new pg.Client({ connectionString: admin.toString() });
      await d.connect();
      await d.query(`drop database if exists "${name}" with (force)`);
      await d.end();
    },
  };
}
