// The gateway as a real process: /readyz and /metrics only on its ops listener (never on the public
// API port), not ready until the projector has created the read models (it runs no DDL itself), and every PostgreSQL connection of its own terminated costs nothing: it stays up, the
// credential LISTEN reconnects, and a revoked key is still refused at once. It runs in production
// mode without HOLDFAST_SECRETS_KEYS at all: the gateway holds no master key, only its own two keys.
import type { ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  loadUnsubscribeKeys,
  parseUnsubscribeKeys,
  signUnsubscribeToken,
  UnsubscribeKeys,
} from '@holdfast/secrets';
import { revokeApiKey } from '@holdfast/control-plane';
import { DEFAULT_READ_MODEL_SCHEMA, ensureReadModelSchema } from '@holdfast/read-models';
import { createTestEnv, spawnTs, type TestEnv } from '@holdfast/testing';
import { call, newAccount } from '@holdfast/testing/services';

let t: TestEnv;
let child: ChildProcess | undefined;
const logs: Record<string, unknown>[] = [];
let api = '';
let ops = '';

beforeAll(async () => {
  t = await createTestEnv('gwops');
  child = spawnTs(
    'services/gateway/src/main.ts',
    {
      ...t.env,
      PORT: '0',
      HOST: '127.0.0.1',
      HOLDFAST_OPS_HOST: '127.0.0.1',
      PRODUCER_POOL_SIZE: '1',
      LOG_LEVEL: 'info',
      NODE_ENV: 'production',
    },
    { unset: ['HOLDFAST_SECRETS_KEYS'] },
  );
  [api, ops] = await new Promise<[string, string]>((resolve, reject) => {
    let seen = '';
    createInterface({ input: child!.stdout! }).on('line', (line) => {
      seen += `${line}\n`;
      try {
        logs.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        /* the plain "listening" lines */
      }
      const a = /gateway listening on (http:\/\/[\d.]+:\d+)/.exec(seen);
      const o = /gateway ops listening on (http:\/\/[\d.]+:\d+)/.exec(seen);
      if (a && o) resolve([a[1]!, o[1]!]);
    });
    child!.once('exit', (code) => reject(new Error(`gateway exited with ${code}:\n${seen}`)));
  });
}, 120_000);
afterAll(async () => {
  child?.kill('SIGKILL');
  await t?.close();
});

const eventually = async <T>(what: string, fn: () => Promise<T>, ok: (v: T) => boolean, ms = 30_000) => {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

describe('gateway process: ops listener and PostgreSQL connection loss', () => {
  it('answers but is not ready until the read models exist, then is, without a restart', async () => {
    const before = await call(ops, 'GET', '/readyz');
    expect(before.status).toBe(503);
    expect(before.json).toEqual({
      ready: false,
      checks: {
        postgres: 'ok',
        kafka: 'ok',
        registry: 'ok',
        read_models: `failing: 11 read-model tables missing in "read_models" (created by the projector's start or holdfast migrate)`,
      },
    });
    // The API answers meanwhile (here: an unauthenticated call is refused, not dropped).
    expect((await call(api, 'GET', '/ingest/health')).status).toBe(401);
    // What the projector's start (or `holdfast migrate`) does.
    await ensureReadModelSchema(t.pool, DEFAULT_READ_MODEL_SCHEMA);
    const after = await call(ops, 'GET', '/readyz');
    expect(after.status).toBe(200);
    expect(after.json).toEqual({
      ready: true,
      checks: { postgres: 'ok', kafka: 'ok', registry: 'ok', read_models: 'ok' },
    });
  });

  it('started in production without HOLDFAST_SECRETS_KEYS; verifies unsubscribe links with HOLDFAST_UNSUBSCRIBE_KEYS', async () => {
    expect(t.env.HOLDFAST_UNSUBSCRIBE_KEYS).toBeTruthy();
    const subject = { accountId: randomUUID(), customerId: randomUUID(), channel: 'email' as const };
    const token = signUnsubscribeToken(loadUnsubscribeKeys(t.env), subject);
    const page = await fetch(`${api}/unsubscribe/${token}`);
    expect(page.status).toBe(200);
    const other = new UnsubscribeKeys(parseUnsubscribeKeys(`u1:${randomBytes(32).toString('base64')}`));
    expect((await fetch(`${api}/unsubscribe/${signUnsubscribeToken(other, subject)}`)).status).toBe(404);
  });

  it('serves /healthz, /readyz and /metrics on the ops listener only', async () => {
    expect((await call(api, 'GET', '/readyz')).status).toBe(404);
    expect((await call(api, 'GET', '/metrics')).status).toBe(404);
    const ready = await call(ops, 'GET', '/readyz');
    expect(ready.status).toBe(200);
    expect((await call(ops, 'GET', '/healthz')).status).toBe(200);
    await call(api, 'GET', '/ingest/health');
    expect((await call(ops, 'GET', '/metrics')).text).toMatch(
      /holdfast_http_requests_total\{[^}]*route="\/ingest\/\*"/,
    );
  });

  it('stays up through pg_terminate_backend of its connections; the LISTEN reconnects; revocation still holds', async () => {
    const acc = await newAccount(t);
    expect((await call(api, 'GET', '/ingest/health', { key: acc.key })).status).toBe(200);
    const { rows } = await t.pool.query<{ n: number }>(
      `select count(pg_terminate_backend(pid))::int as n from pg_stat_activity
        where datname = $1 and application_name = 'gateway'`,
      [t.name],
    );
    expect(rows[0]!.n).toBeGreaterThan(0); // at least the credential LISTEN connection
    await eventually(
      'the LISTEN connection back',
      () => Promise.resolve(logs.some((l) => l.event === 'credential_listener_reconnected')),
      (v) => v,
    );
    expect(logs.some((l) => l.event === 'credential_listener_lost')).toBe(true);
    expect(child!.exitCode).toBeNull();
    await eventually(
      'an authenticated call answered',
      () => call(api, 'GET', '/ingest/health', { key: acc.key }).then((r) => r.status),
      (s) => s === 200,
    );
    await revokeApiKey(t.db, acc.keyId);
    await eventually(
      'the revoked key refused',
      () => call(api, 'GET', '/ingest/health', { key: acc.key }).then((r) => r.status),
      (s) => s === 401,
      2_000,
    );
    expect((await call(ops, 'GET', '/readyz')).status).toBe(200);
    expect(child!.exitCode).toBeNull();
  });
});
