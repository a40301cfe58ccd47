// Crypto-shredding end to end on the projector: records sealed as the gateway seals them, a rebuild,
// the keys of one person destroyed, a rebuild again. The person's records fold without their personal
// data (same customer, same links); everyone else's rows are identical.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { topicName, TransactionalAppender } from '@holdfast/kafka';
import { silentLogger } from '@holdfast/platform';
import {
  defaultPrivacyKeyring,
  PgSubjectKeyStore,
  sealPersonal,
  SubjectKeyCache,
  type PersonalEvent,
} from '@holdfast/privacy';
import { DEFAULT_READ_MODEL_SCHEMA } from '@holdfast/read-models';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import type { ProjectorDeps } from '../../src/runtime/start-projector.js';
import {
  customerEvent,
  customerRow,
  customerUpserted,
  metadata,
  orderRow,
  orderUpserted,
  zeroParty,
} from '@holdfast/testing/events';
import { rebuildReadModels } from '../../src/replay/rebuild-read-models.js';

let t: TestEnv;
let deps: ProjectorDeps;
let store: PgSubjectKeyStore;
const account = randomUUID();
const at = (minute: number) => new Date(Date.UTC(2025, 0, 1, 0, minute)).toISOString();

beforeAll(async () => {
  t = await createTestEnv('replay-shred');
  deps = { pool: t.pool, kafka: t.kafka, codec: t.codec, logger: silentLogger };
  store = new PgSubjectKeyStore(t.pool, defaultPrivacyKeyring());
});
afterAll(() => t?.close());

/** Ann and Bob, each: a profile, orders naming them by id and by email only, an event, a quiz. Carol in clear. */
function people(): PersonalEvent[] {
  const events: PersonalEvent[] = [];
  let minute = 0;
  for (const p of [
    { id: 'ann', email: 'ann@example.com', phone: '+14155550101', name: 'Ann Archer', city: 'Austin' },
    { id: 'bob', email: 'bob@example.com', phone: '+14155550102', name: 'Bob Baker', city: 'Boston' },
  ]) {
    const address = { street: '1 Main St', city: p.city, state: 'TX', zip: '73301', country: 'US' };
    events.push({
      type: 'CustomerUpserted',
      value: customerUpserted(
        metadata(account, at(minute++)),
        customerRow({ external_id: p.id, email: p.email, name: p.name, address }),
      ),
    });
    events.push({
      type: 'OrderUpserted',
      value: orderUpserted(
        metadata(account, at(minute++)),
        orderRow({
          order_id: `${p.id}-1`,
          customer_id: p.id,
          email: p.email,
          phone: p.phone,
          customer_name: p.name,
          shipping_city: p.city,
          shipping_zip: '73301',
        }),
      ),
    });
    // Named by email only: another subject (e:), resolved to the same customer by blind index.
    events.push({
      type: 'OrderUpserted',
      value: orderUpserted(
        metadata(account, at(minute++)),
        orderRow({ order_id: `${p.id}-2`, customer_id: null, email: p.email, customer_name: p.name }),
      ),
    });
    events.push({
      type: 'CustomerEventReceived',
      value: customerEvent(metadata(account, at(minute++)), `ev-${p.id}`, {
        phone: p.phone,
        consent: { marketing_email: null, sms: true, suppressed: null, bounced: null },
      }),
    });
    events.push({
      type: 'ZeroPartySubmitted',
      value: zeroParty(metadata(account, at(minute++)), `zp-${p.id}`, {
        email: p.email,
        interests: ['tea'],
        attributes_json: JSON.stringify({ birthday: '1990-01-01' }),
      }),
    });
  }
  // Ann's last record changes her name alone: live, it moves nothing but the name (updated_at stays,
  // mergeCustomer), so her row after the erasure equals her replay, updated_at included.
  events.push({
    type: 'CustomerUpserted',
    value: customerUpserted(
      metadata(account, at(minute++)),
      customerRow({ external_id: 'ann', name: 'Ann B. Archer' }),
    ),
  });
  return events;
}

async function appendLog(): Promise<void> {
  const keys = new SubjectKeyCache(store);
  const sealed = await sealPersonal(keys, account, people());
  const carol = orderUpserted(
    metadata(account, at(100)),
    orderRow({
      order_id: 'carol-1',
      customer_id: 'carol',
      email: 'carol@example.com',
      customer_name: 'Carol',
    }),
  );
  const appender = await TransactionalAppender.create(t.kafka, { name: `${t.topicPrefix}shred`, size: 1 });
  try {
    const topic = topicName(t.topicPrefix, 'holdfast.commerce');
    const typeOf = (v: unknown) =>
      'order' in (v as object)
        ? 'OrderUpserted'
        : 'customer' in (v as object)
          ? 'CustomerUpserted'
          : 'event' in (v as object)
            ? 'CustomerEventReceived'
            : 'ZeroPartySubmitted';
    await appender.append(
      [...sealed, carol].map((value) => ({
        topic,
        key: account,
        value: t.codec.encode(typeOf(value), value as never),
      })),
    );
  } finally {
    await appender.close();
  }
}

type Rows = Record<string, Record<string, unknown>[]>;
const TABLES = ['customers', 'orders', 'customer_events', 'zero_party_submissions', 'customer_subjects'];

async function rebuildRows(): Promise<Rows> {
  await rebuildReadModels(
    { topicPrefix: t.topicPrefix, readSchema: DEFAULT_READ_MODEL_SCHEMA, noSwitch: true, chunkSize: 3 },
    deps,
  );
  const out: Rows = {};
  for (const table of TABLES)
    out[table] = (
      await t.pool.query<Record<string, unknown>>(`select * from read_models_next.${table} order by 1, 2, 3`)
    ).rows;
  return out;
}

describe('a replay after crypto-shredding', () => {
  it("folds the shredded person's records without personal data, and everyone else identically", async () => {
    await appendLog();
    const before = await rebuildRows();
    const ann = before.customers!.find((c) => c.external_id === 'ann')!;
    expect(ann).toMatchObject({ email: 'ann@example.com', phone: '+14155550101', name: 'Ann B. Archer' });
    // Her last change of a value a replay sees: the event's consent (minute 3), not the rename (10).
    expect(ann.updated_at).toEqual(new Date(at(3)));
    expect(before.customers).toHaveLength(3);
    // The raw log carries no plaintext: the read models got it back from the keys.
    expect(before.orders!.find((o) => o.order_id === 'ann-2')).toMatchObject({
      customer_id: ann.customer_id,
      email: 'ann@example.com',
    });
    const annSubjects = before
      .customer_subjects!.filter((s) => s.customer_id === ann.customer_id)
      .map((s) => s.subject_id as string);
    // The profile and first order (x:), the e-mail-only order and quiz (e:), the event (p:).
    expect(annSubjects.map((s) => s.slice(0, 2)).sort()).toEqual(['e:', 'p:', 'x:']);

    expect(await store.destroy(account, annSubjects, randomUUID())).toBe(3);
    const after = await rebuildRows();

    const isAnn = (r: Record<string, unknown>) => r.customer_id === ann.customer_id;
    for (const table of TABLES)
      expect(
        after[table]!.filter((r) => !isAnn(r)),
        table,
      ).toEqual(before[table]!.filter((r) => !isAnn(r)));
    // Ann: the same customer, found again by blind index, with no personal value left.
    expect(after.customers!.filter(isAnn)).toEqual([
      {
        ...ann,
        email: null,
        phone: null,
        name: null,
        address_street: null,
        address_city: null,
        address_state: null,
        address_zip: null,
        address_country: null,
      },
    ]);
    const annOrders = after.orders!.filter(isAnn);
    expect(annOrders.map((o) => o.order_id)).toEqual(['ann-1', 'ann-2']);
    for (const o of annOrders)
      expect(o).toMatchObject({
        email: null,
        phone: null,
        customer_name: null,
        shipping_city: null,
        shipping_zip: null,
      });
    expect(after.zero_party_submissions!.filter(isAnn)).toMatchObject([{ email: null, attributes: null }]);
    expect(after.customer_events!.filter(isAnn)).toMatchObject([{ content_key: null, link_method: 'phone' }]);
    expect(after.customer_subjects!.filter(isAnn)).toEqual(before.customer_subjects!.filter(isAnn));
  });
});
