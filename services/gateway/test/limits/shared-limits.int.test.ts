import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_READ_MODEL_SCHEMA, ensureReadModelSchema } from '@holdfast/read-models';
import { createTestEnv, spawnTs, type TestEnv } from '@holdfast/testing';
import { call, newAccount, type AccountFixture } from '@holdfast/testing/services';

let t: TestEnv;
const children: ChildProcess[] = [];
let urls: string[] = [];
let opsUrls: string[] = [];

/** Starts src/main.ts as a real process on a free port and resolves with its address (and its ops listener's). */
async function spawnGateway(): Promise<{ child: ChildProcess; url: string; ops: string }> {
  const child = spawnTs('services/gateway/src/main.ts', {
    ...t.env,
    PORT: '0',
    HOST: '127.0.0.1',
    TRUST_PROXY: 'loopback',
    PRODUCER_POOL_SIZE: '1',
  });
  children.push(child);
  let out = '';
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const [url, ops] = await new Promise<[string, string]>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /gateway listening on (http:\/\/[\d.]+:\d+)/.exec(out);
      const o = /gateway ops listening on http:\/\/[\d.]+:(\d+)/.exec(out);
      if (m && o) resolve([m[1]!, `http://127.0.0.1:${o[1]!}`]);
    });
    child.once('exit', (code) => reject(new Error(`gateway exited with ${code}: ${err}`)));
  });
  return { child, url, ops };
}

/** Fixed one-minute windows: start a burst with enough of the current minute left to finish in it. */
async function awaitRoomInMinute(seconds: number): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < seconds * 1000) await new Promise((r) => setTimeout(r, left + 50));
}

beforeAll(async () => {
  t = await createTestEnv('gw-shared');
  // The gateway runs no DDL; its readiness waits for the read models (the projector's start creates them).
  await ensureReadModelSchema(t.pool, DEFAULT_READ_MODEL_SCHEMA);
  const gateways = await Promise.all([spawnGateway(), spawnGateway()]);
  urls = gateways.map((g) => g.url);
  opsUrls = gateways.map((g) => g.ops);
});

afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  await t?.close();
});

describe('two gateway processes on one database', () => {
  it('are ready once Kafka, the registry and PostgreSQL answer (on the ops listener, not the API port)', async () => {
    for (const url of urls) expect((await call(url, 'GET', '/readyz')).status).toBe(404);
    for (const url of opsUrls) {
      const r = await call(url, 'GET', '/readyz');
      expect(r.status).toBe(200);
      expect(r.json).toEqual({
        ready: true,
        checks: { postgres: 'ok', kafka: 'ok', registry: 'ok', read_models: 'ok' },
      });
    }
  });

  it('share the 600-per-minute limit of a key', async () => {
    const acc: AccountFixture = await newAccount(t);
    await awaitRoomInMinute(25);
    for (let wave = 0; wave < 600; wave += 20) {
      const statuses = await Promise.all(
        Array.from({ length: 20 }, (_, i) => call(urls[i % 2]!, 'GET', '/ingest/health', { key: acc.key })),
      );
      expect(statuses.map((s) => s.status)).toEqual(Array(20).fill(200));
    }
    for (const url of urls) {
      const r = await call(url, 'GET', '/ingest/health', { key: acc.key });
      expect(r.status).toBe(429);
      expect(r.headers.get('retry-after')).toMatch(/^\d+$/);
    }
  });

  it('share the failed-authentication limit of an IP', async () => {
    await awaitRoomInMinute(10);
    const ip = '198.51.100.9';
    for (let i = 0; i < 30; i++)
      expect((await call(urls[i % 2]!, 'GET', '/ingest/health', { key: 'tk_live_wrong', ip })).status).toBe(
        401,
      );
    for (const url of urls)
      expect((await call(url, 'GET', '/ingest/health', { key: 'tk_live_wrong', ip })).status).toBe(429);
  });

  it('share the sync throttle of an account', async () => {
    const acc = await newAccount(t);
    expect((await call(urls[0]!, 'POST', '/ingest/sync', { key: acc.key })).status).toBe(200);
    const r = await call(urls[1]!, 'POST', '/ingest/sync', { key: acc.key });
    expect(r.status).toBe(429);
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(590);
  });

  it('stop cleanly on SIGTERM', async () => {
    const exits = children.map((c) => once(c, 'exit'));
    for (const c of children) c.kill('SIGTERM');
    const codes = (await Promise.all(exits)).map(([code]) => code as number);
    expect(codes).toEqual([0, 0]);
  });
});
