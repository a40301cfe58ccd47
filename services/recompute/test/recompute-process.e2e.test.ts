// The recompute as a real process: an ops listener from the first moment (/healthz, /readyz, /metrics,
// which it never had), not ready while the registry is away, ready once it answers, with its consumer
// group's lag on /metrics.
import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { topicName } from '@holdfast/kafka';
import { createTestEnv, spawnTs, TcpProxy, type TestEnv } from '@holdfast/testing';

let t: TestEnv;
let proxy: TcpProxy;
let child: ChildProcess | undefined;
const logs: Record<string, unknown>[] = [];

beforeAll(async () => {
  t = await createTestEnv('recprocess');
  const real = new URL(process.env.SCHEMA_REGISTRY_URL!);
  proxy = await TcpProxy.start(real.hostname, Number(real.port), { forwarding: false });
});
afterAll(async () => {
  child?.kill('SIGKILL');
  await proxy?.close();
  await t?.close();
});

async function eventually<T>(what: string, fn: () => Promise<T>, ok: (v: T) => boolean, ms = 90_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn().catch(() => undefined);
    if (v !== undefined && ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const get = async (port: unknown, path: string) => {
  const res = await fetch(`http://127.0.0.1:${String(port)}${path}`);
  return { status: res.status, text: await res.text() };
};

describe('recompute process', () => {
  it('is alive and not ready while the registry is away, ready once it answers, and exports its lag', async () => {
    const through = new URL(process.env.SCHEMA_REGISTRY_URL!);
    through.port = String(proxy.port);
    child = spawnTs('services/recompute/src/main.ts', {
      ...t.env,
      SCHEMA_REGISTRY_URL: through.toString().replace(/\/$/, ''),
      LOG_LEVEL: 'info',
    });
    createInterface({ input: child.stdout! }).on('line', (l) => {
      try {
        logs.push(JSON.parse(l) as Record<string, unknown>);
      } catch {
        /* not a log line */
      }
    });
    const listening = await eventually(
      'ops listener',
      () => Promise.resolve(logs.find((l) => l.event === 'recompute_ops_listening')),
      (l) => l !== undefined,
    );
    const port = listening.metricsPort;
    await eventually(
      'waiting for the registry',
      () =>
        Promise.resolve(logs.some((l) => l.event === 'dependency_waiting' && l.dependency === 'registry')),
      (v) => v,
    );
    expect((await get(port, '/healthz')).status).toBe(200);
    const notReady = await get(port, '/readyz');
    expect(notReady.status).toBe(503);
    expect(JSON.parse(notReady.text)).toMatchObject({
      ready: false,
      checks: { registry: expect.stringMatching(/^failing: /) as string, postgres: 'ok', kafka: 'ok' },
    });
    expect(child.exitCode).toBeNull();

    proxy.forward();
    const ready = await eventually(
      'ready',
      () => get(port, '/readyz'),
      (r) => r.status === 200,
    );
    expect(JSON.parse(ready.text)).toEqual({
      ready: true,
      checks: { postgres: 'ok', kafka: 'ok', registry: 'ok', consumer: 'ok' },
    });
    const metrics = await eventually(
      'lag gauge',
      () => get(port, '/metrics'),
      (m) => m.text.includes('holdfast_consumer_lag_records{'),
    );
    expect(metrics.text).toContain(
      `holdfast_consumer_lag_records{group="${t.topicPrefix}recompute-sync",topic="${topicName(t.topicPrefix, 'holdfast.sync-commands')}"`,
    );
    child.kill('SIGTERM');
    expect(await new Promise((resolve) => child!.once('exit', resolve))).toBe(0);
    child = undefined;
  }, 180_000);
});
