// The local stack scripts, on their own ports and data directory so the shared stack is untouched:
// `up` twice reuses the running broker, `down` leaves no process behind.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
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
  HOLDFAST_PG_PORT: '59998',
  HOLDFAST_EMBEDDED_PG_PORT: '54339',
  HOLDFAST_PG_DATA: pgData,
  HOLDFAST_CACHE: cache,
  HOLDFAST_KAFKA_PORT: '19392',
  HOLDFAST_KAFKA_CONTROLLER_PORT: '19393',
  HOLDFAST_REGISTRY_PORT: '18381',
  HOLDFAST_REGISTRY_MANAGEMENT_PORT: '19381',
  HOLDFAST_REGISTRY_DB: `holdfast_registry_infra_test`,
  HOLDFAST_KAFKA_HEAP: '256m',
  HOLDFAST_REGISTRY_HEAP: '256m',
};
// Reuse the downloads of the main cache: only run state and data are private to this test.
const mainCache = process.env.HOLDFAST_CACHE ?? join(process.env.HOME ?? '/root', '.cache', 'holdfast');

function infra(cmd: string) {
  const r = spawnSync('node', ['infra/cli.mjs', cmd], {
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
    expect(first.out).toContain('KAFKA_BROKERS=127.0.0.1:19392');
    expect(first.err).toContain('postgres: started an embedded server on 127.0.0.1:54339');
    expect(first.out).toContain('DATABASE_URL=postgres://postgres:postgres@127.0.0.1:54339/holdfast');
    expect(first.out).toContain('SCHEMA_REGISTRY_URL=http://127.0.0.1:18381/apis/ccompat/v7');
    const kafkaPid = pidOf('kafka');
    const registryPid = pidOf('registry');
    const postgresPid = pidOf('postgres');

    const second = infra('up');
    expect(second.code, second.err).toBe(0);
    expect(second.err).toContain('kafka: reusing the broker on 127.0.0.1:19392');
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
    expect(await listening(54339)).toBe(false);
    expect(await listening(19392)).toBe(false);
    expect(await listening(18381)).toBe(false);
  });
});
