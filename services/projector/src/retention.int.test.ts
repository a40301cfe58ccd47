// The retention pass of the projector: batch records past the spec's 90 days are deleted by the
// projection that owns read_models.ingest_batches, idempotently, and a failing pass never throws.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '@holdfast/platform';
import { ensureReadModelSchema } from '@holdfast/read-models';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import { selectProjections } from './projections/index.js';
import { startRetention } from './retention.js';

let t: TestEnv;
beforeAll(async () => {
  t = await createTestEnv('retention');
  await ensureReadModelSchema(t.pool, 'ret');
});
afterAll(() => t.close());

const NOW = new Date('2026-11-24T07:00:00.000Z');
const DAY = 86_400_000;

async function batch(receivedAt: Date): Promise<string> {
  const id = randomUUID();
  await t.pool.query(
    `insert into ret.ingest_batches (batch_id, account_id, endpoint, dry_run, status, http_status,
       received, accepted, dropped, duration_ms, received_at)
     values ($1, $2, 'POST /ingest/orders', false, 'accepted', 200, 1, 1, 0, 3, $3)`,
    [id, randomUUID(), receivedAt],
  );
  return id;
}

describe('retention pass', () => {
  it('deletes batch records received more than 90 days ago, keeps the rest, and a second pass deletes nothing', async () => {
    const expired = await batch(new Date(NOW.getTime() - 90 * DAY - 1));
    const edge = await batch(new Date(NOW.getTime() - 90 * DAY));
    const recent = await batch(new Date(NOW.getTime() - DAY));
    const retention = startRetention(selectProjections(), {
      pool: t.pool,
      schema: 'ret',
      logger: silentLogger,
      intervalMs: 3_600_000,
      now: () => NOW,
    });
    try {
      expect(await retention.runOnce()).toEqual({ 'ingest-batches': 1 });
      const { rows } = await t.pool.query<{ batch_id: string }>(
        `select batch_id from ret.ingest_batches order by received_at`,
      );
      expect(rows.map((r) => r.batch_id)).toEqual([edge, recent]);
      expect(rows.map((r) => r.batch_id)).not.toContain(expired);
      expect(await retention.runOnce()).toEqual({ 'ingest-batches': 0 });
    } finally {
      retention.stop();
    }
  });

  it('a pass that fails (no schema yet) is reported as nothing deleted, never thrown', async () => {
    const retention = startRetention(selectProjections(), {
      pool: t.pool,
      schema: 'ret_missing',
      logger: silentLogger,
      intervalMs: 3_600_000,
      now: () => NOW,
    });
    try {
      expect(await retention.runOnce()).toEqual({ 'ingest-batches': 0 });
    } finally {
      retention.stop();
    }
  });
});
