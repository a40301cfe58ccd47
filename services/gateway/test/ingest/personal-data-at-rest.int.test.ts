// The proof on raw bytes (docs/privacy.md): personal values ingested through the real gateway never
// appear in the bytes Kafka keeps. An independent kafkajs consumer (no codec, no keys) reads every
// record of holdfast.commerce, holdfast.pixel-events and holdfast.dlq; the projector, which holds the
// keys, still folds the values back into the read models.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTile } from '@holdfast/control-plane';
import { topicName } from '@holdfast/kafka';
import type { RunningProjector } from '@holdfast/projections';
import { createTestEnv, type TestEnv, until } from '@holdfast/testing';
import { call, newAccount, runProjector, startGateway, type TestGateway } from '@holdfast/testing/services';
import { collect, pixelEvent, pixelKey, storedPixelEvents } from '../pixel/testing/collector-client.js';

let t: TestEnv;
let projector: RunningProjector;
let stack: TestGateway;

beforeAll(async () => {
  t = await createTestEnv('at-rest');
  projector = await runProjector(t);
  stack = await startGateway(t);
});
afterAll(async () => {
  await stack?.close();
  await projector?.stop();
  await t?.close();
});

/**
 * Every record value of `topic` (raw bytes) up to its end offsets (a transaction's last offset is its
 * commit marker, so the last record may sit one before the end), at least `min`, read without the codec.
 */
async function rawValues(topic: string, min = 0): Promise<Buffer[]> {
  const name = topicName(t.topicPrefix, topic as never);
  const admin = t.verifier.admin();
  await admin.connect();
  const ends = await admin.fetchTopicOffsets(name).finally(() => admin.disconnect());
  const want = new Map(ends.map((e) => [e.partition, Number(e.high)]));
  const total = [...want.values()].reduce((a, b) => a + b, 0);
  const values: Buffer[] = [];
  if (total === 0) return values;
  const consumer = t.verifier.consumer({
    groupId: `${t.topicPrefix}raw-${randomUUID()}`,
    maxWaitTimeInMs: 100,
  });
  await consumer.connect();
  try {
    await consumer.subscribe({ topic: name, fromBeginning: true });
    const seen = new Map<number, number>();
    let done!: () => void;
    const finished = new Promise<void>((r) => (done = r));
    await consumer.run({
      eachMessage: ({ partition, message }) => {
        if (message.value) values.push(message.value);
        seen.set(partition, Number(message.offset) + 1);
        if (
          values.length >= min &&
          [...want].every(([p, high]) => high === 0 || (seen.get(p) ?? 0) >= high - 1)
        )
          done();
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

describe('personal data at rest in the log', () => {
  it('given emails, phones, names and addresses ingested by every route, then no record of the log carries one', async () => {
    const a = await newAccount(t);
    await connectTile(t.db, a.accountId, 'custom_integration');
    const { token } = await connectTile(t.db, a.accountId, 'zero_party');
    const marker = `Marker-Tea-${randomUUID().slice(0, 8)}`;
    const orders = await call(stack.url, 'POST', '/ingest/orders', {
      key: a.key,
      body: {
        orders: [
          {
            order_id: 'O-1',
            customer_id: 'cust-zq-1',
            order_date: '2025-03-01T10:00:00Z',
            order_amount: 40,
            product_name: marker,
            email: 'Zelda.Quinn@Example.org',
            phone: '(415) 555-0199',
            customer_name: 'Zelda Quinn',
            shipping_city: 'Quahogville',
            shipping_state: 'RI',
            shipping_zip: '02903',
          },
          {
            order_id: 'O-2',
            customer_id: '',
            order_date: '2025-03-02T10:00:00Z',
            order_amount: 12,
            product_name: marker,
            email: 'yorick.peabody@example.net',
            customer_name: 'Yorick Peabody',
          },
        ],
      },
    });
    expect(orders.status).toBe(200);
    const customers = await call(stack.url, 'POST', '/ingest/customers', {
      key: a.key,
      body: {
        customers: [
          {
            external_id: 'cust-zq-1',
            email: 'zelda.quinn@example.org',
            phone: '+1 415 555 0199',
            name: 'Zelda Quinn',
            address: { street: '742 Evergreen Terrace', city: 'Quahogville', state: 'RI', zip: '02903' },
          },
        ],
      },
    });
    expect(customers.status).toBe(200);
    const event = await call(stack.url, 'POST', '/webhooks/custom-api', {
      key: a.key,
      body: {
        email: 'xander.voss@example.com',
        phone: '+14155550177',
        name: 'Xander Voss',
        event_type: 'profile',
      },
    });
    expect(event.status).toBe(200);
    const quiz = await call(
      stack.url,
      'POST',
      `/webhooks/zero-party?account_id=${a.accountId}&token=${token}`,
      {
        body: { email: 'wilma.ash@example.com', attributes: { birthday: 'born-1990-07-14' } },
      },
    );
    expect(quiz.status).toBe(200);

    // The projector holds the keys: the read models have the values back.
    await until(
      () =>
        t.pool.query(
          `select 1 from read_models.zero_party_submissions where account_id = $1 and email = 'wilma.ash@example.com'`,
          [a.accountId],
        ),
      (r) => r.rows.length === 1,
    );
    const { rows: stored } = await t.pool.query<{
      email: string;
      phone: string;
      name: string;
      address_street: string;
    }>(
      `select email, phone, name, address_street from read_models.customers where account_id = $1 and external_id = 'cust-zq-1'`,
      [a.accountId],
    );
    expect(stored).toEqual([
      {
        email: 'zelda.quinn@example.org',
        phone: '+14155550199',
        name: 'Zelda Quinn',
        address_street: '742 Evergreen Terrace',
      },
    ]);

    const commerce = await rawValues('holdfast.commerce', 5);
    const dlq = await rawValues('holdfast.dlq');
    expect(commerce).toHaveLength(5);
    const bytes = [...commerce, ...dlq];
    // The reader sees the records' contents: what is not personal is there in clear.
    expect(commerce.filter((v) => v.includes(marker))).toHaveLength(2);
    expect(commerce.some((v) => v.includes('cust-zq-1'))).toBe(true);
    const personal = [
      'zelda.quinn@example.org',
      'Zelda.Quinn',
      'yorick.peabody@example.net',
      'xander.voss@example.com',
      'wilma.ash@example.com',
      '4155550199',
      '4155550177',
      'Zelda Quinn',
      'Yorick Peabody',
      'Xander Voss',
      'Quahogville',
      '742 Evergreen',
      '02903',
      'born-1990-07-14',
    ];
    for (const value of personal) {
      const found = bytes.filter((v) => v.includes(Buffer.from(value, 'utf8')));
      expect(found, `"${value}" in the raw log`).toHaveLength(0);
    }
  });
});

describe('pixel personal data at rest in the log', () => {
  it('given raw_props, a search and a page title posted to /pixel/collect, then no record of the pixel topic carries them, and with sealing off every one would', async () => {
    // The control: a second gateway with sealing off (HOLDFAST_UNSAFE_UNSEALED) on the same topics
    // writes the same values in clear, and the same search finds them in its records.
    const unsealed = await startGateway(t, { config: { unsafeUnsealed: true } });
    try {
      const [sealedKey, clearKey] = [await pixelKey(t), await pixelKey(t)];
      const marker = `/marker-${randomUUID().slice(0, 8)}`;
      const values = {
        email: 'ursula.pixel@example.org',
        name: 'Ursula Pixelmann',
        phone: '+14155550142',
        search: 'ursula pixelmann 4155550142',
        title: 'Hello, Ursula Pixelmann',
      };
      const events = () => [
        pixelEvent({
          page_title: values.title,
          raw_props: { utm_content: 'trk-u', email: values.email, name: values.name, phone: values.phone },
        }),
        pixelEvent({ event_type: 'search', search: values.search }),
        pixelEvent({ url_path: marker }),
      ];
      expect((await collect(stack.url, { key: sealedKey.key, events: events() })).status).toBe(204);
      expect((await collect(unsealed.url, { key: clearKey.key, events: events() })).status).toBe(204);

      // The projector holds the keys: the read model has the values back.
      const rows = await until(
        () => storedPixelEvents(t, sealedKey.accountId),
        (r) => r.length === 3,
      );
      expect(rows.map((r) => r.raw_props)).toContainEqual({
        utm_content: 'trk-u',
        email: values.email,
        name: values.name,
        phone: values.phone,
      });
      const { rows: typed } = await t.pool.query(
        `select search, page_title from read_models.pixel_events
          where account_id = $1 and (search is not null or page_title is not null) order by search nulls first`,
        [sealedKey.accountId],
      );
      expect(typed).toEqual([
        { search: null, page_title: values.title },
        { search: values.search, page_title: null },
      ]);

      const all = await rawValues('holdfast.pixel-events', 6);
      const of = (accountId: string) => all.filter((v) => v.includes(Buffer.from(accountId, 'utf8')));
      const sealedRecords = of(sealedKey.accountId);
      const clearRecords = of(clearKey.accountId);
      expect(sealedRecords).toHaveLength(3);
      expect(clearRecords).toHaveLength(3);
      // The reader sees the records' contents: what is not personal is there in clear.
      expect(sealedRecords.filter((v) => v.includes(marker))).toHaveLength(1);
      for (const value of Object.values(values)) {
        const needle = Buffer.from(value, 'utf8');
        expect(
          sealedRecords.filter((v) => v.includes(needle)),
          `"${value}" in the raw log`,
        ).toHaveLength(0);
        expect(
          clearRecords.some((v) => v.includes(needle)),
          `"${value}" written in clear with sealing off`,
        ).toBe(true);
      }
    } finally {
      await unsealed.close();
    }
  });
});
