import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTransaction } from '@holdfast/postgres';
import { DEFAULT_READ_MODEL_SCHEMA, ensureReadModelSchema } from '@holdfast/read-models';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import { blankPerson } from './blank-person.js';

// blankPerson on seeded read models: exactly the person's personal values go, nothing else moves.
let t: TestEnv;
const account = randomUUID();
const ann = randomUUID();
const bob = randomUUID();
const SUBJECT = 'x:AnnIndexAnnIndexAnnInd';

const q = (text: string, values: unknown[] = []) => t.pool.query(text, values);

async function pixel(session: string, utm: string | null, props: Record<string, unknown> = {}) {
  const id = randomUUID();
  await q(
    `insert into read_models.pixel_events (account_id, event_id, pixel_key_id, origin, event_type, occurred_at,
       anonymous_id, session_id, raw_props, received_at)
     values ($1, $2, 'pk', 'https://shop.example.com', 'page_view', now(), 'anon-' || $3, $3, $4, now())`,
    [account, id, session, JSON.stringify(utm ? { utm_content: utm, ...props } : props)],
  );
  return id;
}

beforeAll(async () => {
  t = await createTestEnv('blank-person');
  await ensureReadModelSchema(t.pool, DEFAULT_READ_MODEL_SCHEMA);
  for (const [id, who] of [
    [ann, 'ann'],
    [bob, 'bob'],
  ] as const) {
    await q(
      `insert into read_models.customers (account_id, customer_id, external_id, email, phone, name, address_street,
         address_city, address_zip, address_country, email_index, created_at, updated_at)
       values ($1, $2, $3, $3 || '@example.com', '+14155550100', $3 || ' Person', '1 Main St', 'Town', '94000', 'US',
               $3 || '-index', '2026-01-01', '2026-01-02')`,
      [account, id, who],
    );
    await q(
      `insert into read_models.orders (account_id, order_id, customer_id, external_customer_id, order_date, order_amount,
         product_name, email, phone, customer_name, shipping_city, shipping_state, shipping_zip, refunded_amount,
         first_seen_at, updated_at)
       values ($1, $3 || '-o1', $2, $3, '2026-01-05', 40, 'Tea', $3 || '@example.com', '+14155550100', $3 || ' Person',
               'Town', 'CA', '94000', 5, '2026-01-05', '2026-01-05')`,
      [account, id, who],
    );
    await q(
      `insert into read_models.zero_party_submissions (account_id, dedup_key, event_id, customer_id, email, received_at)
       values ($1, $3, $3, $2, $3 || '@example.com', now())`,
      [account, id, who],
    );
    await q(
      `insert into read_models.customer_events (account_id, dedup_key, event_id, customer_id, link_method, is_new,
         event_type, received_at, content_key)
       values ($1, $3, $3, $2, 'provider_id', false, 'signup', now(), 'ck-' || $3)`,
      [account, id, who],
    );
    await q(
      `insert into read_models.campaign_sends (tracking_id, account_id, customer_id, campaign_type, channel, provider,
         url, sent_at, event_id, received_at)
       values ('hft_' || $3, $1, $2, 'win_back', 'email', 'local', 'https://shop.example.com', now(), $3, now())`,
      [account, id, who],
    );
  }
  for (const [offset, value] of [
    [1, Buffer.concat([Buffer.from([0, 1, 2]), Buffer.from(SUBJECT), Buffer.from([9])])],
    [2, Buffer.from('x:SomebodyElseIndexAbcd')],
  ] as const)
    await q(
      `insert into read_models.dead_letters (projection, topic, partition, record_offset, account_id, reason, record_value)
       values ('commerce', 'holdfast.commerce', 0, $1, $2, 'poison', $3)`,
      [offset, account, value],
    );
  await q(
    `insert into read_models.projection_checkpoints (projection, topic, partition, last_offset)
     values ('commerce', 'holdfast.commerce', 0, 10), ('commerce', 'holdfast.commerce', 1, 20)`,
  );
});
afterAll(() => t?.close());

describe('blankPerson', () => {
  it("blanks exactly the person's personal values, keeps amounts, indexes and everyone else", async () => {
    const annLanding = await pixel('s-ann', 'hft_ann', { email: 'ann@example.com' });
    const annLater = await pixel('s-ann', null, { q: 'tea' });
    const bobLanding = await pixel('s-bob', 'hft_bob');
    const anonymous = await pixel('s-anon', null, { q: 'coffee' });
    const { rows: before } = await q(
      `select xmin::text as v from read_models.projection_checkpoints order by partition`,
    );

    const blanked = await withTransaction(t.pool, (c) =>
      blankPerson(c, DEFAULT_READ_MODEL_SCHEMA, account, [ann], [SUBJECT]),
    );

    expect(blanked).toEqual({
      customers: 1,
      customerEvents: 1,
      orders: 1,
      zeroParty: 1,
      pixelEvents: 2,
      deadLetters: 1,
    });
    const customers = await q(
      `select external_id, email, phone, name, address_street, address_city, address_zip, address_country,
              email_index, updated_at::text
         from read_models.customers order by external_id`,
    );
    expect(customers.rows).toEqual([
      {
        external_id: 'ann',
        email: null,
        phone: null,
        name: null,
        address_street: null,
        address_city: null,
        address_zip: null,
        address_country: null,
        email_index: 'ann-index',
        updated_at: '2026-01-02 00:00:00+00',
      },
      expect.objectContaining({ external_id: 'bob', email: 'bob@example.com', name: 'bob Person' }),
    ]);
    const orders = await q(
      `select order_id, order_amount::text, refunded_amount::text, net_amount::text, email, phone, customer_name,
              shipping_city, shipping_state, shipping_zip
         from read_models.orders order by order_id`,
    );
    expect(orders.rows[0]).toEqual({
      order_id: 'ann-o1',
      order_amount: '40.0000',
      refunded_amount: '5.0000',
      net_amount: '35.0000',
      email: null,
      phone: null,
      customer_name: null,
      shipping_city: null,
      shipping_state: null,
      shipping_zip: null,
    });
    expect(orders.rows[1]).toMatchObject({
      order_id: 'bob-o1',
      email: 'bob@example.com',
      shipping_zip: '94000',
    });
    const zp = await q('select dedup_key, email from read_models.zero_party_submissions order by 1');
    expect(zp.rows).toEqual([
      { dedup_key: 'ann', email: null },
      { dedup_key: 'bob', email: 'bob@example.com' },
    ]);
    const ev = await q('select dedup_key, content_key from read_models.customer_events order by 1');
    expect(ev.rows).toEqual([
      { dedup_key: 'ann', content_key: null },
      { dedup_key: 'bob', content_key: 'ck-bob' },
    ]);
    const px = await q('select event_id, raw_props from read_models.pixel_events');
    const props = new Map(
      px.rows.map((r: { event_id: string; raw_props: unknown }) => [r.event_id, r.raw_props]),
    );
    expect(props.get(annLanding)).toBeNull();
    expect(props.get(annLater)).toBeNull();
    expect(props.get(bobLanding)).toEqual({ utm_content: 'hft_bob' });
    expect(props.get(anonymous)).toEqual({ q: 'coffee' });
    const dl = await q('select record_offset::int as o from read_models.dead_letters');
    expect(dl.rows).toEqual([{ o: 2 }]);
    // The checkpoints it locked have new versions (the projector's memory reloads), unchanged offsets.
    const { rows: after } = await q(
      `select xmin::text as v, last_offset::int as o from read_models.projection_checkpoints order by partition`,
    );
    expect(after.map((r: { o: number }) => r.o)).toEqual([10, 20]);
    expect(after.map((r: { v: string }) => r.v)).not.toEqual(before.map((r: { v: string }) => r.v));
  });
});
