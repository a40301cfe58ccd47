// The retention pass of the projector: batch records past the spec's 90 days, pixel events past
// HOLDFAST_PIXEL_RETENTION_DAYS and dead letters past HOLDFAST_DEAD_LETTER_RETENTION_DAYS are deleted,
// idempotently, and a failing pass never throws. Also the erasure hook of the dead letters.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '@holdfast/platform';
import { ensureReadModelSchema } from '@holdfast/read-models';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import { deleteDeadLettersForEvents } from '../src/dlq/dead-letter-store.js';
import { selectProjections } from '../src/projections/index.js';
import { startRetention } from '../src/retention.js';
import { insertDeadLetters } from '../src/runtime/dead-letters.js';
import { metadata, orderRow, orderUpserted } from '@holdfast/testing/events';

let t: TestEnv;
beforeAll(async () => {
  t = await createTestEnv('retention');
  await ensureReadModelSchema(t.pool, 'ret');
});
afterAll(() => t.close());

const NOW = new Date('2026-11-24T07:00:00.000Z');
const DAY = 86_400_000;
const ago = (ms: number) => new Date(NOW.getTime() - ms);
const POLICY = { deadLetterDays: 30, pixelEventDays: 395 };

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

async function pixelEvent(receivedAt: Date): Promise<string> {
  const id = randomUUID();
  await t.pool.query(
    `insert into ret.pixel_events (account_id, event_id, pixel_key_id, origin, event_type, occurred_at,
       anonymous_id, raw_props, received_at)
     values ($1, $2, 'pk-1', 'https://shop.example.com', 'page_view', $3, 'anon-1', '{"q":"x"}', $3)`,
    [randomUUID(), id, receivedAt],
  );
  return id;
}

let offset = 0;
/** A dead letter of an encoded OrderUpserted of `accountId`, recorded at `at`; answers its id and event id. */
async function deadLetter(accountId: string, at: Date, status: 'dead' | 'redriven' = 'dead') {
  const value = orderUpserted(
    metadata(accountId),
    orderRow({ order_id: `o-${offset}`, email: 'x@example.com' }),
  );
  const client = await t.pool.connect();
  try {
    await insertDeadLetters(client, 'ret', [
      {
        projection: 'commerce',
        topic: 'holdfast.commerce',
        partition: 0,
        offset: String(++offset),
        key: Buffer.from(accountId),
        value: t.codec.encode('OrderUpserted', value),
        timestamp: String(at.getTime()),
        reason: 'check constraint violated',
        requestId: `req-${offset}`,
      },
    ]);
  } finally {
    client.release();
  }
  if (status === 'redriven')
    await t.pool.query(`update ret.dead_letters set status = 'redriven' where record_offset = $1`, [offset]);
  return { id: `commerce:0:${offset}`, eventId: value.metadata.event_id };
}

const ids = async (sql: string) => (await t.pool.query<{ id: string }>(sql)).rows.map((r) => r.id);

describe('retention pass', () => {
  it('deletes what each rule expired at now, keeps the rest, and a second pass deletes nothing', async () => {
    const expired = await batch(ago(90 * DAY + 1));
    const edge = await batch(ago(90 * DAY));
    const recent = await batch(ago(DAY));
    const oldPixel = await pixelEvent(ago(395 * DAY + 1));
    const keptPixel = await pixelEvent(ago(395 * DAY));
    const account = randomUUID();
    const oldDead = await deadLetter(account, ago(30 * DAY + 1));
    const oldRedriven = await deadLetter(account, ago(31 * DAY), 'redriven');
    const keptLetter = await deadLetter(account, ago(30 * DAY));
    const retention = startRetention(selectProjections(), {
      pool: t.pool,
      schema: 'ret',
      logger: silentLogger,
      intervalMs: 3_600_000,
      retention: POLICY,
      now: () => NOW,
    });
    try {
      expect(await retention.runOnce()).toEqual({
        'ingest-batches': 1,
        'pixel-events': 1,
        'dead-letters': 2,
      });
      expect(await ids(`select batch_id as id from ret.ingest_batches order by received_at`)).toEqual([
        edge,
        recent,
      ]);
      expect(expired).not.toBe(edge);
      expect(await ids(`select event_id::text as id from ret.pixel_events`)).toEqual([keptPixel]);
      expect(oldPixel).not.toBe(keptPixel);
      expect(await ids(`select id from ret.dead_letters`)).toEqual([keptLetter.id]);
      expect([oldDead.id, oldRedriven.id]).not.toContain(keptLetter.id);
      expect(await retention.runOnce()).toEqual({
        'ingest-batches': 0,
        'pixel-events': 0,
        'dead-letters': 0,
      });
    } finally {
      retention.stop();
      await t.pool.query(`truncate ret.ingest_batches, ret.pixel_events, ret.dead_letters`);
    }
  });

  it('given shorter configured periods, then the pixel events and dead letters are cut at those', async () => {
    const pixel = await pixelEvent(ago(8 * DAY));
    const letter = await deadLetter(randomUUID(), ago(2 * DAY));
    const retention = startRetention(selectProjections(), {
      pool: t.pool,
      schema: 'ret',
      logger: silentLogger,
      intervalMs: 3_600_000,
      retention: { deadLetterDays: 1, pixelEventDays: 7 },
      now: () => NOW,
    });
    try {
      expect(await retention.runOnce()).toEqual({
        'ingest-batches': 0,
        'pixel-events': 1,
        'dead-letters': 1,
      });
      expect(
        await ids(`select event_id::text as id from ret.pixel_events where event_id = '${pixel}'`),
      ).toEqual([]);
      expect(await ids(`select id from ret.dead_letters where id = '${letter.id}'`)).toEqual([]);
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
      expect(await retention.runOnce()).toEqual({
        'ingest-batches': 0,
        'pixel-events': 0,
        'dead-letters': 0,
      });
    } finally {
      retention.stop();
    }
  });
});

describe('deleteDeadLettersForEvents', () => {
  it('deletes the letters of the account whose record is one of the events, and nothing else', async () => {
    const account = randomUUID();
    const other = randomUUID();
    const erased = await deadLetter(account, NOW);
    const kept = await deadLetter(account, NOW);
    const otherAccount = await deadLetter(other, NOW);
    // Same event id under another account: letters are matched within the account only.
    const { deleted } = await deleteDeadLettersForEvents(t.pool, 'ret', t.codec, account, [
      erased.eventId,
      otherAccount.eventId,
    ]);
    expect(deleted).toEqual([erased.id]);
    const left = await ids(
      `select id from ret.dead_letters where id in ('${erased.id}', '${kept.id}', '${otherAccount.id}') order by record_offset`,
    );
    expect(left).toEqual([kept.id, otherAccount.id]);
    expect(await deleteDeadLettersForEvents(t.pool, 'ret', t.codec, account, [erased.eventId])).toEqual({
      deleted: [],
    });
  });

  it('never matches an undecodable letter (garbage bytes), and keeps it for the retention', async () => {
    const account = randomUUID();
    const client = await t.pool.connect();
    try {
      await insertDeadLetters(client, 'ret', [
        {
          projection: 'commerce',
          topic: 'holdfast.commerce',
          partition: 1,
          offset: '1',
          key: Buffer.from(account),
          value: Buffer.from('not avro'),
          timestamp: String(NOW.getTime()),
          reason: 'undecodable',
        },
      ]);
    } finally {
      client.release();
    }
    expect(await deleteDeadLettersForEvents(t.pool, 'ret', t.codec, account, [randomUUID()])).toEqual({
      deleted: [],
    });
    expect(await ids(`select id from ret.dead_letters where account_id = '${account}'`)).toEqual([
      'commerce:1:1',
    ]);
  });
});
