// A varied slice of the event log for replay tests: every stream, identity collisions, re-posts,
// same-transaction duplicates, webhook retries and a poison record, spread over several accounts.
import { randomUUID } from 'node:crypto';
import type { EventCodec, EventName, EventTypes, TopicName } from '@holdfast/contracts';
import { topicName, type OutgoingRecord } from '@holdfast/kafka';
import { mulberry32 } from '@holdfast/testing';
import {
  customerEvent,
  customerRow,
  customerUpserted,
  metadata,
  orderRow,
  orderUpserted,
  zeroParty,
} from '@holdfast/testing/events';

export function mixedStream(
  codec: EventCodec,
  prefix: string,
  { accounts = 3, orders = 400, seed = 1, startMinute = 0 } = {},
): OutgoingRecord[] {
  const rnd = mulberry32(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
  const out: OutgoingRecord[] = [];
  let minute = startMinute;
  const at = () => new Date(Date.UTC(2025, 0, 1) + minute++ * 1000).toISOString();
  const push = <N extends EventName>(topic: TopicName, name: N, account: string, value: EventTypes[N]) =>
    out.push({ topic: topicName(prefix, topic), key: account, value: codec.encode(name, value) });
  const accountIds = Array.from({ length: accounts }, () => randomUUID());
  for (const a of accountIds) {
    const emails = Array.from({ length: 40 }, (_, i) => `p${i}@example.com`);
    const phones = Array.from({ length: 40 }, (_, i) => `+1512555${String(1000 + i)}`);
    for (let i = 0; i < orders; i++) {
      const o = orderRow({
        order_id: `o-${Math.floor(rnd() * orders * 0.8)}`,
        customer_id: rnd() < 0.9 ? `c-${Math.floor(rnd() * 120)}` : null,
        email: rnd() < 0.5 ? pick(emails) : null,
        phone: rnd() < 0.3 ? pick(phones) : null,
        customer_name: rnd() < 0.5 ? `Name ${i}` : null,
        order_amount: Math.round(rnd() * 20_000) / 100,
        order_date: new Date(
          Date.UTC(2024, Math.floor(rnd() * 12), 1 + Math.floor(rnd() * 28)),
        ).toISOString(),
        refunded_amount: rnd() < 0.2 ? Math.round(rnd() * 5000) / 100 : null,
        cancelled_at: rnd() < 0.05 ? at() : null,
        discount_codes: rnd() < 0.1 ? ['SAVE10'] : null,
        source: pick(['email', 'sms', 'organic', null]),
      });
      push('holdfast.commerce', 'OrderUpserted', a, orderUpserted(metadata(a, at()), o));
      if (i % 4 === 0) {
        const c = customerRow({
          external_id: rnd() < 0.6 ? `c-${Math.floor(rnd() * 150)}` : null,
          email: rnd() < 0.6 ? pick(emails) : null,
          phone: rnd() < 0.4 ? pick(phones) : null,
          name: rnd() < 0.5 ? `Customer ${i}` : null,
          consent:
            rnd() < 0.5
              ? {
                  marketing_email: pick([true, false, null]),
                  sms: pick([true, false, null]),
                  suppressed: null,
                  bounced: pick([true, null]),
                }
              : null,
          address:
            rnd() < 0.3
              ? { street: `${i} Main St`, city: 'Austin', state: 'TX', zip: null, country: 'US' }
              : null,
          subscription_status: pick(['active', 'paused', 'cancelled', null] as const),
          subscription_started_at:
            rnd() < 0.3 ? new Date(Date.UTC(2023, Math.floor(rnd() * 12), 1)).toISOString() : null,
        });
        if (c.external_id === null && c.email === null && c.phone === null) continue;
        push('holdfast.commerce', 'CustomerUpserted', a, customerUpserted(metadata(a, at()), c));
      }
      if (i % 10 === 0) {
        const ev = {
          external_id: rnd() < 0.5 ? `c-${Math.floor(rnd() * 150)}` : null,
          email: pick(emails),
          consent: { marketing_email: null, sms: false, suppressed: null, bounced: null },
        };
        push(
          'holdfast.commerce',
          'CustomerEventReceived',
          a,
          customerEvent(metadata(a, at()), `k-${Math.floor(rnd() * orders * 0.08)}`, ev),
        );
        push(
          'holdfast.commerce',
          'ZeroPartySubmitted',
          a,
          zeroParty(metadata(a, at()), `zp-${Math.floor(rnd() * orders * 0.05)}`, {
            email: pick(emails),
            interests: ['tea'],
          }),
        );
        push('holdfast.account-settings', 'AccountSettingsChanged', a, {
          metadata: metadata(a, at()),
          store_timezone: pick(['UTC', 'Europe/Paris']),
        });
        push('holdfast.campaigns', 'CampaignSent', a, {
          metadata: metadata(a, at()),
          tracking_id: randomUUID(),
          customer_id: randomUUID(),
          campaign_type: 'winback',
          channel: 'email',
          provider: 'klaviyo',
          url: 'https://shop.example.com/',
          sent_at: at(),
          task_id: null,
        });
        push('holdfast.ingest-batches', 'IngestBatchRecorded', a, {
          metadata: metadata(a, at(), { batch_id: randomUUID() }),
          endpoint: '/ingest/orders',
          dry_run: false,
          status: 'accepted',
          http_status: 200,
          received: 10,
          accepted: 10,
          dropped: 0,
          error_codes: [],
          warning_codes: [],
          errors_json: null,
          duration_ms: 5,
          sync_task_id: null,
        });
      }
      if (i % 5 === 0) {
        const pixelEvent = {
          metadata: metadata(a, at()),
          pixel_key_id: 'pk-1',
          origin: 'https://shop.example.com',
          event_id: randomUUID(),
          event_type: 'page_view' as const,
          occurred_at: at(),
          anonymous_id: `anon-${i % 30}`,
          session_id: null,
          url_path: '/',
          page_title: null,
          referrer_host: null,
          product_external_id: null,
          collection: null,
          search: null,
          price_cents: null,
          dwell_ms: null,
          consent_state: 'granted',
          raw_props_json: null,
          personal: null,
        };
        push('holdfast.pixel-events', 'PixelEventCollected', a, pixelEvent);
      }
    }
    out.push({
      topic: topicName(prefix, 'holdfast.commerce'),
      key: a,
      value: Buffer.from('poison: not a registry record'),
    });
  }
  return out;
}

/** Appends `records` in transactions of `size`, like a stream of ingest batches. */
export async function appendInBatches(
  appender: { append(r: readonly OutgoingRecord[]): Promise<void> },
  records: readonly OutgoingRecord[],
  size = 500,
): Promise<void> {
  for (let i = 0; i < records.length; i += size) await appender.append(records.slice(i, i + size));
}
