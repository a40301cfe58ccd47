import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IngestBatchRecorded, PixelEventCollected } from '@holdfast/contracts';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import { metadata } from '@holdfast/testing/events';
import { MergeFixture } from '../test-support/merge-fixture.js';
import { accountSettingsProjection } from '../../src/projections/account-settings.projection.js';
import { campaignSendsProjection } from '../../src/projections/campaign-sends.projection.js';
import { ingestBatchesProjection } from '../../src/projections/ingest-batches.projection.js';
import { createPixelEventsProjection } from '../../src/projections/pixel-events.projection.js';

let t: TestEnv;
beforeAll(async () => (t = await createTestEnv('streams')));
afterAll(() => t.close());

const at = (minute: number) => new Date(Date.UTC(2025, 0, 1, 0, minute)).toISOString();

describe('single-stream projections', () => {
  it('account settings: the last change wins', async () => {
    const f = await MergeFixture.create(t, 'acs', accountSettingsProjection);
    const a = f.account();
    await f.given(
      ['AccountSettingsChanged', { metadata: metadata(a, at(1)), store_timezone: 'America/Chicago' }],
      ['AccountSettingsChanged', { metadata: metadata(a, at(2)), store_timezone: 'Europe/Paris' }],
    );
    expect(await f.whole.rows(`select * from rm.account_settings where account_id = $1`, [a])).toEqual([
      { account_id: a, store_timezone: 'Europe/Paris', updated_at: new Date(at(2)) },
    ]);
  });

  it('ingest batches: one row per batch id with every recorded field', async () => {
    const f = await MergeFixture.create(t, 'ib', ingestBatchesProjection);
    const a = f.account();
    const batch = (status: IngestBatchRecorded['status'], minute: number): IngestBatchRecorded => ({
      metadata: metadata(a, at(minute), { batch_id: 'b-1', key_id: 'k-1', request_id: 'r-1' }),
      endpoint: '/ingest/orders',
      dry_run: false,
      status,
      http_status: 200,
      received: 3,
      accepted: 2,
      dropped: 1,
      error_codes: ['no_usable_identity'],
      warning_codes: [],
      errors_json: '[{"index":2,"order_id":"o-3","codes":["no_usable_identity"]}]',
      duration_ms: 12,
      sync_task_id: null,
    });
    await f.given(['IngestBatchRecorded', batch('queued', 1)], ['IngestBatchRecorded', batch('accepted', 2)]);
    expect(await f.whole.rows(`select * from rm.ingest_batches where account_id = $1`, [a])).toEqual([
      {
        batch_id: 'b-1',
        account_id: a,
        endpoint: '/ingest/orders',
        dry_run: false,
        status: 'accepted',
        http_status: 200,
        received: 3,
        accepted: 2,
        dropped: 1,
        error_codes: ['no_usable_identity'],
        warning_codes: [],
        errors: [{ index: 2, order_id: 'o-3', codes: ['no_usable_identity'] }],
        duration_ms: 12,
        sync_task_id: null,
        key_id: 'k-1',
        request_id: 'r-1',
        received_at: new Date(at(2)),
      },
    ]);
  });

  it('pixel events: stored once per event id', async () => {
    const f = await MergeFixture.create(t, 'px', createPixelEventsProjection());
    const a = f.account();
    const e: PixelEventCollected = {
      metadata: metadata(a, at(1)),
      pixel_key_id: 'pk-1',
      origin: 'https://shop.example.com',
      event_id: randomUUID(),
      event_type: 'add_to_cart',
      occurred_at: at(0),
      anonymous_id: 'anon-1',
      session_id: 's-1',
      url_path: '/p/tea',
      page_title: 'Tea',
      referrer_host: null,
      product_external_id: 'sku-1',
      collection: null,
      search: null,
      price_cents: 1299,
      dwell_ms: 4000,
      consent_state: 'granted',
      raw_props_json: '{"utm_content":"t-1"}',
      personal: null,
    };
    await f.given(
      ['PixelEventCollected', e],
      ['PixelEventCollected', { ...e, metadata: metadata(a, at(2)) }],
    );
    expect(
      await f.whole.rows(
        `select event_type, price_cents, raw_props, received_at from rm.pixel_events where account_id = $1`,
        [a],
      ),
    ).toEqual([
      {
        event_type: 'add_to_cart',
        price_cents: 1299,
        raw_props: { utm_content: 't-1' },
        received_at: new Date(at(1)),
      },
    ]);
  });

  it('campaign sends: one row per tracking id', async () => {
    const f = await MergeFixture.create(t, 'cs', campaignSendsProjection);
    const a = f.account();
    const customer = randomUUID();
    await f.given([
      'CampaignSent',
      {
        metadata: metadata(a, at(1)),
        tracking_id: 't-1',
        customer_id: customer,
        campaign_type: 'winback',
        channel: 'email',
        provider: 'klaviyo',
        url: 'https://shop.example.com/?utm_content=t-1',
        sent_at: at(1),
        task_id: 'task-1',
      },
    ]);
    expect(
      await f.whole.rows(
        `select tracking_id, customer_id, campaign_type, sent_at from rm.campaign_sends where account_id = $1`,
        [a],
      ),
    ).toEqual([
      { tracking_id: 't-1', customer_id: customer, campaign_type: 'winback', sent_at: new Date(at(1)) },
    ]);
  });
});
