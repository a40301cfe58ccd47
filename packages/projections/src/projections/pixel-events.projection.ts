import { rawQuery } from '@holdfast/postgres';
import { keptSince } from '@holdfast/domain';
import { openPixelPersonal, subjectsByAccount, type PixelEvent } from '@holdfast/privacy';
import { qualified, type ProjectedEvent, type Projection, type ProjectionTx } from '../projection.js';
import { CommerceKeys } from './commerce/open-commerce.js';
import { columnsOf } from './sql-arrays.js';

/**
 * Opens a chunk's sealed personal fields (`openPixelPersonal`), after checking the key generation so a
 * key destroyed before this chunk is not used: an erased person's browser folds with raw_props,
 * search and page title null.
 */
async function openPixel(
  keys: CommerceKeys,
  events: readonly ProjectedEvent<'PixelEventCollected'>[],
  tx: ProjectionTx,
): Promise<PixelEvent[]> {
  if (!events.some((e) => e.value.personal)) return events.map((e) => e.value);
  const cache = keys.of(tx);
  // The generation and the chunk's uncached keys in one round trip (per account).
  await cache.refreshFor(subjectsByAccount(events.map((e) => e.value)));
  return (
    await openPixelPersonal(
      cache,
      events.map((e) => e.value),
    )
  ).map((o) => o.value);
}

/**
 * Browser events → read_models.pixel_events. The client's event_id makes a resend a no-op. Events
 * received more than `retention.pixelEventDays` ago (HOLDFAST_PIXEL_RETENTION_DAYS, 13 months by
 * default) are deleted by `expire`: by `received_at`, the gateway's clock, never the browser's.
 * Personal fields are opened with `keys` (subject keys of its own, read through the chunk's
 * transaction).
 */
export function createPixelEventsProjection(
  keys: CommerceKeys = new CommerceKeys(),
): Projection<'PixelEventCollected'> {
  return {
    name: 'pixel-events',
    topic: 'holdfast.pixel-events',
    handles: ['PixelEventCollected'],
    tables: ['pixel_events'],
    async expire(pool, schema, now, retention) {
      const r = await rawQuery(
        pool,
        'pixel-events.expire',
        `delete from ${qualified(schema, 'pixel_events')} where received_at < $1`,
        [keptSince(now, retention.pixelEventDays)],
      );
      return r.rowCount ?? 0;
    },
    async apply(events, tx) {
      const opened = await openPixel(keys, events, tx);
      await tx.client.query(
        tx.named(
          'pixel-events.insert',
          (s) => `insert into ${qualified(s, 'pixel_events')} (account_id, event_id, pixel_key_id, origin,
         event_type, occurred_at, anonymous_id, session_id, url_path, page_title, referrer_host,
         product_external_id, collection, search, price_cents, dwell_ms, consent_state, raw_props,
         received_at)
       select a, id, pk, org, et, oa, anon, sid, up, pt, rh, pe, col, se, pc, dw, cs, rp::jsonb, ra
       from unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::timestamptz[],
         $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[],
         $14::text[], $15::bigint[], $16::bigint[], $17::text[], $18::text[], $19::timestamptz[])
         as p(a, id, pk, org, et, oa, anon, sid, up, pt, rh, pe, col, se, pc, dw, cs, rp, ra)
       on conflict (account_id, event_id) do nothing`,
        ),
        columnsOf(opened, (v) => [
          v.metadata.account_id,
          v.event_id,
          v.pixel_key_id,
          v.origin,
          v.event_type,
          v.occurred_at,
          v.anonymous_id,
          v.session_id,
          v.url_path,
          v.page_title,
          v.referrer_host,
          v.product_external_id,
          v.collection,
          v.search,
          v.price_cents,
          v.dwell_ms,
          v.consent_state,
          v.raw_props_json,
          v.metadata.received_at,
        ]),
      );
    },
  };
}
