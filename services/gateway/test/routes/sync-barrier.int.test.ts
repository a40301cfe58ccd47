import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LogPositions, type LogPositionSource } from '@holdfast/kafka';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import { call, newAccount, startGateway, type TestGateway } from '@holdfast/testing/services';
import { SYNC_LOG_UNREACHABLE } from '../../src/routes/sync.js';

let t: TestEnv;
let gw: TestGateway;
let real: LogPositions;
let broken = false;
const asked: string[] = [];

beforeAll(async () => {
  t = await createTestEnv('gw-sync-barrier');
  real = LogPositions.create(t.kafka, t.topicPrefix);
  // The real positions, unless the test breaks them (the broker unreachable, as the gateway sees it).
  const positions: LogPositionSource = {
    ofKey: (topic, key) => {
      asked.push(key);
      return broken ? Promise.reject(new Error('connect ECONNREFUSED')) : real.ofKey(topic, key);
    },
    ofKeys: (topic, keys) => real.ofKeys(topic, keys),
    ofAll: (topic) => real.ofAll(topic),
  };
  gw = await startGateway(t, { logPositions: positions });
});

afterAll(async () => {
  await gw?.close();
  await real?.close();
  await t?.close();
});

describe('POST /ingest/sync reads its barrier', () => {
  it('answers 503 with Retry-After and queues nothing (no task, no outbox row: the transaction rolled back) when the log position cannot be read; the throttle is not spent', async () => {
    const a = await newAccount(t);
    broken = true;
    const refused = await call(gw.url, 'POST', '/ingest/sync', { key: a.key });
    expect(refused.status).toBe(503);
    expect(refused.json).toEqual({ detail: SYNC_LOG_UNREACHABLE });
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(asked).toContain(a.accountId);
    const { rows } = await t.pool.query(`select status from control.sync_tasks where account_id = $1`, [
      a.accountId,
    ]);
    expect(rows).toEqual([]);
    const outbox = await t.pool.query(`select 1 from control.sync_outbox where account_id = $1`, [
      a.accountId,
    ]);
    expect(outbox.rows).toEqual([]);

    broken = false;
    const queued = await call(gw.url, 'POST', '/ingest/sync', { key: a.key });
    expect(queued.status).toBe(200);
    expect(queued.json).toMatchObject({ queued: true });
  });
});
