// EventCodec (packages/contracts) during a registry outage: a record whose schema id the codec has not
// cached yet fails retriably (never as UndecodableRecordError) and decodes once the registry is back.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventCodec, SchemaRegistryUnavailableError, UndecodableRecordError } from '@holdfast/contracts';
import { classifyError } from '@holdfast/platform';
import { TcpProxy } from './tcp-proxy.js';
import { createTestEnv, type TestEnv } from './test-env.js';
import { registerUnseenSchema, withUnseenSchema } from './unseen-schema.js';

let t: TestEnv;
let proxy: TcpProxy;
let codec: EventCodec;
const registryUrl = () => process.env.SCHEMA_REGISTRY_URL!;

beforeAll(async () => {
  t = await createTestEnv('codecoutage');
  const real = new URL(registryUrl());
  proxy = await TcpProxy.start(real.hostname, Number(real.port));
  const through = new URL(registryUrl());
  through.port = String(proxy.port);
  codec = await EventCodec.connect(through.toString().replace(/\/$/, ''));
});
afterAll(async () => {
  await proxy?.close();
  await t?.close();
});

const order = {
  metadata: {
    account_id: randomUUID(),
    event_id: randomUUID(),
    batch_id: null,
    request_id: null,
    key_id: null,
    received_at: '2026-01-01T00:00:00.000Z',
  },
  order: {
    order_id: 'o-1',
    customer_id: 'c-1',
    order_date: '2026-01-01T00:00:00.000Z',
    order_amount: 10,
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
  },
  personal: null,
} as const;

describe('EventCodec when the registry is away', () => {
  it('fails retriably for a schema id it has not cached, then decodes once the registry is back', async () => {
    const id = await registerUnseenSchema(registryUrl(), 'OrderUpserted', t.topicPrefix);
    const bytes = withUnseenSchema(t.codec.encode('OrderUpserted', order), id);
    expect(codec.decodeKnown(bytes)).toBeUndefined();

    proxy.cut();
    const err = await codec.decode(bytes).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(SchemaRegistryUnavailableError);
    expect(err).not.toBeInstanceOf(UndecodableRecordError);
    expect(classifyError(err)).toBe('retriable');

    proxy.forward();
    const decoded = await codec.decode(bytes);
    expect(decoded.type).toBe('OrderUpserted');
    expect(decoded.value).toEqual(order);
  }, 60_000);

  it('a definite 404 from the registry is permanent: UndecodableRecordError', async () => {
    proxy.forward();
    const unknown = Buffer.concat([Buffer.from([0, 0x7f, 0xff, 0xff, 0x00]), Buffer.from('body')]);
    const err = await codec.decode(unknown).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(UndecodableRecordError);
    expect(classifyError(err)).toBe('permanent');
  });
});
