import { randomUUID } from 'node:crypto';
import { SchemaRegistry } from '@kafkajs/confluent-schema-registry';
import { beforeAll, describe, expect, it } from 'vitest';
import { EventCodec, subjectOf } from './codec.js';
import { loadEventSchemas } from './codegen/load-schemas.js';
import type { EventName, EventTypes } from './generated/events.js';

const registryUrl = () => process.env.SCHEMA_REGISTRY_URL!;
const metadata = {
  account_id: randomUUID(),
  event_id: randomUUID(),
  batch_id: randomUUID(),
  request_id: 'req-1',
  key_id: randomUUID(),
  received_at: '2026-11-22T10:00:00.000Z',
};

/** One realistic value per record type. */
const samples: { [K in EventName]: EventTypes[K] } = {
  OrderUpserted: {
    metadata,
    order: {
      order_id: 'o-1',
      customer_id: 'c-1',
      order_date: '2026-01-02T03:04:05.000Z',
      order_amount: 42.5,
      product_name: 'Tea',
      email: 'a@example.com',
      phone: '+15555550100',
      customer_name: 'Ann',
      source: 'email',
      order_channel: 'web',
      currency: 'USD',
      shipping_city: null,
      shipping_state: null,
      shipping_zip: '10001',
      refunded_amount: 2,
      discount_total: null,
      discount_pct: null,
      discount_codes: ['A', 'B'],
      cancelled_at: null,
    },
    personal: {
      subject_id: 'x:abc',
      ciphertext: Buffer.from([1, 2, 3]),
      external_id_index: 'abc',
      email_index: 'def',
      phone_index: null,
    },
  },
  CustomerUpserted: {
    metadata,
    customer: {
      external_id: 'c-1',
      email: null,
      phone: null,
      name: null,
      address: { street: '1 Main', city: null, state: null, zip: null, country: 'US' },
      consent: { marketing_email: true, sms: null, suppressed: null, bounced: false },
      source_label: 'custom-api',
      subscription_status: 'active',
      subscription_started_at: '2025-01-01T00:00:00.000Z',
    },
    personal: null,
  },
  CustomerEventReceived: {
    metadata,
    dedup_key: 'k',
    event: {
      external_id: 'c-1',
      email: null,
      phone: null,
      name: null,
      address: null,
      consent: null,
      event_type: 'custom',
      source_label: null,
    },
    personal: null,
  },
  ZeroPartySubmitted: {
    metadata,
    dedup_key: 'z',
    email: 'a@example.com',
    external_customer_id: null,
    interests: ['tea'],
    attributes_json: '{"size":"M"}',
    source_label: null,
    quiz_version: 'v1',
    personal: null,
    completed_at: null,
  },
  PixelEventCollected: {
    metadata,
    pixel_key_id: randomUUID(),
    origin: 'https://shop.example.com',
    event_id: randomUUID(),
    event_type: 'page_view',
    occurred_at: '2026-11-22T09:59:00.000Z',
    anonymous_id: 'anon',
    session_id: null,
    url_path: '/',
    page_title: null,
    referrer_host: null,
    product_external_id: null,
    collection: null,
    search: null,
    price_cents: 1999,
    dwell_ms: null,
    consent_state: 'granted',
    raw_props_json: null,
    personal: null,
  },
  AccountSettingsChanged: { metadata, store_timezone: 'Europe/Berlin' },
  IngestBatchRecorded: {
    metadata,
    endpoint: '/ingest/orders',
    dry_run: false,
    status: 'accepted',
    http_status: 200,
    received: 2,
    accepted: 1,
    dropped: 1,
    error_codes: ['no_usable_identity'],
    warning_codes: [],
    errors_json: '[]',
    duration_ms: 12,
    sync_task_id: null,
  },
  SyncRequested: {
    metadata,
    task_id: randomUUID(),
    trigger: 'api',
    barrier: [{ topic: 'holdfast.commerce', partition: 1, offset: 42 }],
  },
  CampaignSent: {
    metadata,
    tracking_id: 't-1',
    customer_id: randomUUID(),
    campaign_type: 'win_back',
    channel: 'email',
    provider: 'local-email',
    url: 'https://shop.example.com/?utm_content=t-1',
    sent_at: '2026-11-22T10:00:00.000Z',
    task_id: null,
  },
  DeadLettered: {
    projection: 'orders',
    topic: 'holdfast.commerce',
    partition: 0,
    offset: '12',
    key: Buffer.from('k'),
    value: Buffer.from([1, 2, 3]),
    reason: 'undecodable',
    failed_at: '2026-11-22T10:00:00.000Z',
  },
};

let codec: EventCodec;
beforeAll(async () => {
  codec = await EventCodec.connect(registryUrl());
});

describe('event codec against the real registry', () => {
  it('registers every schema under its record subject with BACKWARD compatibility', async () => {
    for (const name of loadEventSchemas().keys()) {
      const res = await fetch(`${registryUrl()}/config/${subjectOf(name as EventName)}`);
      expect(res.status, name).toBe(200);
      const body = (await res.json()) as { compatibilityLevel: string };
      expect(body.compatibilityLevel).toBe('BACKWARD');
    }
  });

  it.each(Object.keys(samples) as EventName[])(
    '%s round-trips, and @kafkajs/confluent-schema-registry reads our bytes and we read its bytes',
    async (name) => {
      const value = samples[name];
      const bytes = codec.encode(name, value);
      expect(await codec.decode(bytes)).toEqual({ type: name, value });
      const client = new SchemaRegistry({ host: registryUrl() });
      expect(await client.decode(bytes)).toEqual(value);
      const theirs = await client.encode(codec.schemaId(name), value);
      expect(await codec.decode(theirs)).toEqual({ type: name, value });
    },
  );

  it('refuses a schema change that breaks BACKWARD compatibility', async () => {
    const client = new SchemaRegistry({ host: registryUrl() });
    const subject = `holdfast.compat-probe-${randomUUID()}`;
    const v1 = {
      type: 'record',
      name: 'Probe',
      namespace: 'holdfast',
      fields: [{ name: 'a', type: 'string' }],
    };
    await client.register({ type: 'AVRO' as never, schema: JSON.stringify(v1) }, { subject });
    const breaking = { ...v1, fields: [...v1.fields, { name: 'b', type: 'string' }] };
    await expect(
      client.register({ type: 'AVRO' as never, schema: JSON.stringify(breaking) }, { subject }),
    ).rejects.toThrow();
    const compatible = { ...v1, fields: [...v1.fields, { name: 'b', type: 'string', default: '' }] };
    await expect(
      client.register({ type: 'AVRO' as never, schema: JSON.stringify(compatible) }, { subject }),
    ).resolves.toHaveProperty('id');
  });

  it('reads records written under another schema version through an Avro resolver', async () => {
    const client = new SchemaRegistry({ host: registryUrl() });
    // An older writer schema of AccountSettingsChanged that still had a field the current one dropped.
    const current = loadEventSchemas().get('AccountSettingsChanged') as { fields: unknown[] };
    const older = {
      ...current,
      fields: [...current.fields, { name: 'legacy_note', type: 'string', default: '' }],
    };
    const { id } = await client.register(
      { type: 'AVRO' as never, schema: JSON.stringify(older) },
      { subject: `holdfast.evolve-probe-${randomUUID()}` },
    );
    expect(id).not.toBe(codec.schemaId('AccountSettingsChanged'));
    const bytes = await client.encode(id, { ...samples.AccountSettingsChanged, legacy_note: 'old' });
    expect(codec.decodeKnown(bytes)).toBeUndefined();
    expect(await codec.decode(bytes)).toEqual({
      type: 'AccountSettingsChanged',
      value: samples.AccountSettingsChanged,
    });
  });
});
