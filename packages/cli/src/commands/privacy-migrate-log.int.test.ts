// `holdfast privacy migrate-log` on the real Kafka, registry and PostgreSQL: a log with records in
// clear (written before sealing existed), one already sealed, one without personal data and one of an
// erased person, plus two pixel events in clear (one of the erased person's browser), copied to a new
// prefix. The proof is on raw bytes: an independent kafkajs consumer
// (no codec, no keys) finds no personal value in any record of the copy; the projector's opening
// finds them back, except the erased person's.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventTypes } from '@holdfast/contracts';
import { topicName, TransactionalAppender } from '@holdfast/kafka';
import { silentLogger } from '@holdfast/platform';
import {
  blindIndex,
  anonymousSubject,
  loadPrivacyKeyring,
  openPersonal,
  openPixelPersonal,
  PgSubjectKeyStore,
  sealPersonal,
  SubjectKeyCache,
  type PersonalEvent,
  type PixelEvent,
} from '@holdfast/privacy';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import { runCaptured } from '../testing/capture.js';
import { migrateLog } from './privacy-migrate-log.js';

let t: TestEnv;
let store: PgSubjectKeyStore;
const account = randomUUID();

beforeAll(async () => {
  t = await createTestEnv('migrate-log');
  store = new PgSubjectKeyStore(t.pool, loadPrivacyKeyring(t.env));
});
afterAll(() => t?.close());

const metadata = (minute: number) => ({
  account_id: account,
  event_id: randomUUID(),
  batch_id: null,
  request_id: null,
  key_id: null,
  received_at: new Date(Date.UTC(2024, 0, 1, 0, minute)).toISOString(),
});

function order(minute: number, o: Partial<EventTypes['OrderUpserted']['order']>): PersonalEvent {
  return {
    type: 'OrderUpserted',
    value: {
      metadata: metadata(minute),
      order: {
        order_id: 'x',
        customer_id: null,
        order_date: '2024-01-01T00:00:00Z',
        order_amount: 42,
        product_name: 'Tea',
        email: null,
        phone: null,
        customer_name: null,
        source: null,
        order_channel: null,
        currency: 'USD',
        shipping_city: null,
        shipping_state: null,
        shipping_zip: null,
        refunded_amount: null,
        discount_total: null,
        discount_pct: null,
        discount_codes: null,
        cancelled_at: null,
        ...o,
      },
      personal: null,
    },
  };
}

/** A browser event written in clear (before pixel sealing), with what the gateway now seals. */
const pixelEvent = (minute: number, anonymousId: string, note: string): PixelEvent => ({
  metadata: metadata(minute),
  pixel_key_id: 'pk-1',
  origin: 'https://shop.example.com',
  event_id: randomUUID(),
  event_type: 'search',
  occurred_at: '2024-01-01T00:00:00Z',
  anonymous_id: anonymousId,
  session_id: null,
  url_path: `/p/${anonymousId}`,
  page_title: null,
  referrer_host: null,
  product_external_id: null,
  collection: null,
  search: `${note} search`,
  price_cents: null,
  dwell_ms: null,
  consent_state: 'granted',
  raw_props_json: JSON.stringify({ note }),
  personal: null,
});

const ANN = {
  email: 'ann.migrate@example.com',
  phone: '+14155550131',
  name: 'Ann Migrate',
  city: 'Austinville',
};
const BOB = { email: 'bob.erased@example.com', phone: '+14155550132', name: 'Bob Erased' };

/** Every record value of `name` (raw bytes), read without the codec up to `count` records. */
async function rawValues(name: string, count: number): Promise<Buffer[]> {
  const values: Buffer[] = [];
  const consumer = t.verifier.consumer({
    groupId: `${t.topicPrefix}raw-${randomUUID()}`,
    maxWaitTimeInMs: 100,
  });
  await consumer.connect();
  try {
    await consumer.subscribe({ topic: name, fromBeginning: true });
    let done!: () => void;
    const finished = new Promise<void>((r) => (done = r));
    await consumer.run({
      eachMessage: ({ message }) => {
        if (message.value) values.push(message.value);
        if (values.length >= count) done();
        return Promise.resolve();
      },
    });
    await Promise.race([
      finished,
      new Promise((_, no) => setTimeout(() => no(new Error('raw read timed out')), 30_000)),
    ]);
    return values;
  } finally {
    await consumer.disconnect();
  }
}

describe('holdfast privacy migrate-log', () => {
  it('copies the log to a new prefix with every personal value sealed (erased ones dropped), proven on raw bytes', async () => {
    // The log as an older deployment wrote it: Ann and Bob in clear; Carol sealed; Dan names no one.
    const ann = order(1, {
      order_id: 'ann-1',
      customer_id: 'ann',
      email: ANN.email,
      phone: ANN.phone,
      customer_name: ANN.name,
      shipping_city: ANN.city,
    });
    const bob = order(2, {
      order_id: 'bob-1',
      customer_id: 'bob',
      email: BOB.email,
      customer_name: BOB.name,
    });
    const [carol] = await sealPersonal(new SubjectKeyCache(store), account, [
      order(3, { order_id: 'carol-1', customer_id: 'carol', email: 'carol@example.com' }),
    ]);
    const dan = order(4, { order_id: 'dan-1', customer_id: 'dan' });
    const from = topicName(t.topicPrefix, 'holdfast.commerce');
    const appender = await TransactionalAppender.create(t.kafka, { name: `${t.topicPrefix}old`, size: 1 });
    try {
      await appender.append(
        [ann.value, bob.value, carol!, dan.value].map((value) => ({
          topic: from,
          key: account,
          value: t.codec.encode('OrderUpserted', value as never),
        })),
      );
      // Pixel events in clear: Ann's browser, and Bob's (erased with him, below).
      await appender.append(
        [pixelEvent(5, 'anon-ann', 'ann-pixel-note'), pixelEvent(6, 'anon-bob', 'bob-pixel-note')].map(
          (value) => ({
            topic: topicName(t.topicPrefix, 'holdfast.pixel-events'),
            key: account,
            value: t.codec.encode('PixelEventCollected', value),
          }),
        ),
      );
    } finally {
      await appender.close();
    }
    // Bob was erased before the migration: his subjects are recorded (indexes, never his ids), his
    // browser's among them.
    const indexKey = await store.indexKey(account);
    const bobSubject = `x:${blindIndex(indexKey, 'external_id', 'bob')}`;
    const bobBrowser = anonymousSubject(blindIndex(indexKey, 'anonymous_id', 'anon-bob'));
    await t.pool.query(
      `insert into privacy.erased_subjects (account_id, subject_id, erasure_id)
       values ($1, $2, $4), ($1, $3, $4)`,
      [account, bobSubject, bobBrowser, randomUUID()],
    );
    // The clear records are in the old log, raw.
    const before = Buffer.concat(await rawValues(from, 4)).toString('latin1');
    expect(before).toContain(ANN.email);

    const toPrefix = `${t.topicPrefix}v2-`;
    const run = () =>
      migrateLog({
        kafka: t.kafka,
        pool: t.pool,
        codec: t.codec,
        keys: new SubjectKeyCache(store),
        fromPrefix: t.topicPrefix,
        toPrefix,
        partitions: t.partitions,
        logger: silentLogger,
        quietMs: 1_000,
        timeoutMs: 60_000,
      });
    expect(await run()).toEqual({ copied: 6, sealed: 4, topics: 2 });

    // The pixel copy: no note, no search in its raw bytes; opened, Ann's back, Bob's browser gone.
    const pixelRaw = await rawValues(topicName(toPrefix, 'holdfast.pixel-events'), 2);
    const pixelText = Buffer.concat(pixelRaw).toString('latin1');
    for (const pii of ['ann-pixel-note', 'bob-pixel-note']) expect(pixelText, pii).not.toContain(pii);
    expect(pixelText).toContain('/p/anon-ann');
    const pixels = await Promise.all(pixelRaw.map((b) => t.codec.decode(b)));
    const openedPixels = await openPixelPersonal(
      new SubjectKeyCache(store),
      pixels.map((e) => e.value as PixelEvent),
    );
    expect(
      openedPixels.map((o) => [o.value.anonymous_id, o.readable, o.value.raw_props_json, o.value.search]),
    ).toEqual([
      ['anon-ann', true, '{"note":"ann-pixel-note"}', 'ann-pixel-note search'],
      ['anon-bob', false, null, null],
    ]);
    expect((await store.dataKeys(account, [bobBrowser], { create: false })).size).toBe(0);

    // Raw bytes of the copy: no personal value of anyone, in any record; the rest is there in clear.
    const to = topicName(toPrefix, 'holdfast.commerce');
    const raw = await rawValues(to, 4);
    expect(raw).toHaveLength(4);
    const text = Buffer.concat(raw).toString('latin1');
    for (const pii of [...Object.values(ANN), ...Object.values(BOB), 'carol@example.com'])
      expect(text, pii).not.toContain(pii);
    for (const id of ['ann-1', 'bob-1', 'carol-1', 'dan-1']) expect(text).toContain(id);

    // Opened as the projector opens: Ann's values back, Carol's unchanged, Bob's gone for good.
    const decoded = await Promise.all(raw.map((b) => t.codec.decode(b)));
    const opened = await openPersonal(new SubjectKeyCache(store), decoded as PersonalEvent[]);
    const byOrder = new Map(
      opened.map((o) => [(o.value as EventTypes['OrderUpserted']).order.order_id, o] as const),
    );
    expect(byOrder.get('ann-1')).toMatchObject({
      readable: true,
      value: {
        order: { email: ANN.email, phone: ANN.phone, customer_name: ANN.name, shipping_city: ANN.city },
      },
    });
    expect(byOrder.get('carol-1')).toMatchObject({
      readable: true,
      value: { order: { email: 'carol@example.com' } },
    });
    expect(byOrder.get('bob-1')).toMatchObject({
      readable: false,
      subjectId: bobSubject,
      value: { order: { email: null, customer_name: null } },
    });
    expect(byOrder.get('dan-1')).toMatchObject({ subjectId: null, value: { order: { customer_id: 'dan' } } });
    // No key was made for the erased subject.
    expect((await store.dataKeys(account, [bobSubject], { create: false })).size).toBe(0);

    // Run again, through the CLI: resumes from the committed offsets, copies nothing twice.
    const again = await runCaptured(['privacy', 'migrate-log', '--to-prefix', toPrefix, '--json'], t.env);
    expect(again.stderr).toBe('');
    expect(again.json()).toEqual({
      from_prefix: t.topicPrefix,
      to_prefix: toPrefix,
      copied: 0,
      sealed: 0,
      topics: 0,
    });
  }, 60_000);
});
