// The projector as a real process, operated as an operator would break it: started while the registry
// is down (it waits, alive and not ready, and becomes ready once a registry answers), then every
// PostgreSQL connection of its own terminated (it stays up and keeps folding).
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TransactionalAppender, topicName } from '@holdfast/kafka';
import { createTestEnv, spawnTs, TcpProxy, type TestEnv } from '@holdfast/testing';
import { DEFAULT_READ_MODEL_SCHEMA, ensureReadModelSchema } from '@holdfast/read-models';
import { metadata, orderRow, orderUpserted } from '@holdfast/testing/events';
import { until } from '@holdfast/testing';

let t: TestEnv;
let proxy: TcpProxy;
let appender: TransactionalAppender;
let child: ChildProcess | undefined;
const logs: Record<string, unknown>[] = [];

beforeAll(async () => {
  t = await createTestEnv('projprocess');
  await ensureReadModelSchema(t.pool, DEFAULT_READ_MODEL_SCHEMA);
  const real = new URL(process.env.SCHEMA_REGISTRY_URL!);
  proxy = await TcpProxy.start(real.hostname, Number(real.port), { forwarding: false });
  appender = await TransactionalAppender.create(t.kafka, { name: `${t.topicPrefix}proc`, size: 1 });
});
afterAll(async () => {
  child?.kill('SIGKILL');
  await appender?.close();
  await proxy?.close();
  await t?.close();
});

const get = async (port: unknown, path: string) => {
  const res = await fetch(`http://127.0.0.1:${String(port)}${path}`);
  const text = await res.text();
  return { status: res.status, text };
};

describe('projector process', () => {
  it('waits for a registry that is down, alive and not ready; becomes ready once it answers; survives pg_terminate_backend', async () => {
    const through = new URL(process.env.SCHEMA_REGISTRY_URL!);
    through.port = String(proxy.port);
    child = spawnTs('services/projector/src/main.ts', {
      ...t.env,
      SCHEMA_REGISTRY_URL: through.toString().replace(/\/$/, ''),
      PORT: '0',
      LOG_LEVEL: 'info',
    });
    let exited: number | null | undefined;
    child.once('exit', (code) => (exited = code));
    createInterface({ input: child.stdout! }).on('line', (l) => {
      try {
        logs.push(JSON.parse(l) as Record<string, unknown>);
      } catch {
        /* not a log line */
      }
    });
    const listening = await until(
      'ops listener',
      () => Promise.resolve(logs.find((l) => l.event === 'projector_ops_listening')),
      (l) => l !== undefined,
    );
    const port = listening.metricsPort;
    // The registry is down: alive, not ready, waiting (not exited).
    await until(
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
      checks: { startup: 'failing: waiting for the schema registry', postgres: 'ok', kafka: 'ok' },
    });
    expect(exited).toBeUndefined();

    proxy.forward();
    await until(
      'ready',
      () => get(port, '/readyz'),
      (r) => r.status === 200,
      90_000,
    );

    const a = randomUUID();
    const topic = topicName(t.topicPrefix, 'holdfast.commerce');
    const append = (ids: string[]) =>
      appender.append(
        ids.map((id) => ({
          topic,
          key: a,
          value: t.codec.encode('OrderUpserted', orderUpserted(metadata(a), orderRow({ order_id: id }))),
        })),
      );
    const orders = () =>
      t.pool
        .query<{ n: number }>(`select count(*)::int as n from read_models.orders where account_id = $1`, [a])
        .then((r) => r.rows[0]!.n);
    await append(['o-1', 'o-2']);
    await until('first orders', orders, (n) => n === 2);

    // Every connection of the projector to this test's database, terminated (a failover would do it).
    const { rows } = await t.pool.query<{ n: number }>(
      `select count(pg_terminate_backend(pid))::int as n from pg_stat_activity
        where datname = $1 and application_name = 'holdfast-projector'`,
      [t.name],
    );
    expect(rows[0]!.n).toBeGreaterThan(0);
    await append(['o-3']);
    await until('order after the termination', orders, (n) => n === 3);
    expect(exited).toBeUndefined();
    expect((await get(port, '/healthz')).status).toBe(200);
    await until(
      'ready again',
      () => get(port, '/readyz'),
      (r) => r.status === 200,
    );
    const metrics = await get(port, '/metrics');
    expect(metrics.text).toContain(
      `holdfast_consumer_lag_records{group="${t.topicPrefix}holdfast.projector",topic="${topic}"`,
    );
    expect(JSON.stringify(logs)).not.toContain('Unhandled');

    child.kill('SIGTERM');
    const code = await new Promise((resolve) => child!.once('exit', resolve));
    expect(code).toBe(0);
    child = undefined;
  }, 180_000);
});
