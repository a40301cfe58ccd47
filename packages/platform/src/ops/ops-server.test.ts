import { afterEach, describe, expect, it } from 'vitest';
import { createMetricsRegistry } from '../metrics.js';
import { NotReadyError, Readiness } from './readiness.js';
import { startOpsServer, type OpsServer } from './ops-server.js';

let ops: OpsServer | undefined;
afterEach(async () => {
  await ops?.close();
  ops = undefined;
});

const get = async (path: string) => {
  const res = await fetch(`http://127.0.0.1:${ops!.port}${path}`);
  const text = await res.text();
  return {
    status: res.status,
    text,
    json: res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : undefined,
  };
};

describe('the ops listener', () => {
  it('reports not ready while starting and while a check fails, without internal error text', async () => {
    const readiness = new Readiness(200);
    readiness.add('postgres', () => {
      throw Object.assign(new Error('connect ECONNREFUSED 10.1.2.3:5432 password=secret'), {
        code: 'ECONNREFUSED',
      });
    });
    readiness.add('consumer', () => {
      throw new NotReadyError('holdfast.projector: not joined to its group');
    });
    readiness.add('slow', () => new Promise(() => {}));
    ops = await startOpsServer({
      port: 0,
      host: '127.0.0.1',
      registry: createMetricsRegistry('t'),
      readiness,
    });
    readiness.phase('waiting for kafka');

    expect(await get('/healthz')).toMatchObject({ status: 200, json: { alive: true } });
    const starting = await get('/readyz');
    expect(starting.status).toBe(503);
    expect(starting.json).toEqual({
      ready: false,
      checks: {
        startup: 'failing: waiting for kafka',
        postgres: 'failing: Error (ECONNREFUSED)',
        consumer: 'failing: holdfast.projector: not joined to its group',
        slow: 'failing: timed out',
      },
    });
    expect(starting.text).not.toContain('10.1.2.3');
    expect(starting.text).not.toContain('secret');
  });

  it('answers 200 once every check passes; serves /metrics with the loop lag; 404 elsewhere', async () => {
    const readiness = new Readiness();
    readiness.add('postgres', async () => {});
    readiness.started();
    ops = await startOpsServer({
      port: 0,
      host: '127.0.0.1',
      registry: createMetricsRegistry('t'),
      readiness,
    });
    expect(await get('/readyz')).toMatchObject({
      status: 200,
      json: { ready: true, checks: { postgres: 'ok' } },
    });
    const metrics = await get('/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.text).toMatch(/holdfast_event_loop_lag_seconds\{service="t"\} [\d.e-]+/);
    expect((await get('/nope')).status).toBe(404);
  });

  it('/healthz fails while the event loop is blocked longer than the threshold', async () => {
    const readiness = new Readiness();
    ops = await startOpsServer({
      port: 0,
      host: '127.0.0.1',
      registry: createMetricsRegistry('t'),
      readiness,
      maxLoopLagMs: 300,
    });
    const answer = get('/healthz');
    const until = Date.now() + 1_200; // the loop stuck in synchronous work
    while (Date.now() < until);
    const res = await answer;
    expect(res.status).toBe(503);
    expect(res.json.alive).toBe(false);
    expect(res.json.loop_lag_ms).toBeGreaterThanOrEqual(300);
  });
});
