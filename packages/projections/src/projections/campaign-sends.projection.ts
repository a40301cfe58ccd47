import { qualified, type Projection } from '../projection.js';
import { columnsOf } from './sql-arrays.js';

/** Campaign sends → read_models.campaign_sends (attribution joins orders to them). First send of a tracking id wins. */
export const campaignSendsProjection: Projection<'CampaignSent'> = {
  name: 'campaign-sends',
  topic: 'holdfast.campaigns',
  handles: ['CampaignSent'],
  tables: ['campaign_sends'],
  async apply(events, tx) {
    await tx.client.query(
      tx.named(
        'campaign-sends.insert',
        (s) => `insert into ${qualified(s, 'campaign_sends')} (tracking_id, account_id, customer_id,
         campaign_type, channel, provider, url, sent_at, task_id, event_id, received_at)
       select * from unnest($1::text[], $2::uuid[], $3::uuid[], $4::text[], $5::text[], $6::text[],
         $7::text[], $8::timestamptz[], $9::text[], $10::text[], $11::timestamptz[])
       on conflict (tracking_id) do nothing`,
      ),
      columnsOf(events, ({ value: v }) => [
        v.tracking_id,
        v.metadata.account_id,
        v.customer_id,
        v.campaign_type,
        v.channel,
        v.provider,
        v.url,
        v.sent_at,
        v.task_id,
        v.metadata.event_id,
        v.metadata.received_at,
      ]),
    );
  },
};
