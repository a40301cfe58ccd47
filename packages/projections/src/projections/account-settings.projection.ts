import type { AccountSettingsChanged } from '@holdfast/contracts';
import { qualified, type Projection } from '../projection.js';
import { columnsOf } from './sql-arrays.js';

/** PATCH /ingest/account → read_models.account_settings (last write wins). */
export const accountSettingsProjection: Projection<'AccountSettingsChanged'> = {
  name: 'account-settings',
  topic: 'holdfast.account-settings',
  handles: ['AccountSettingsChanged'],
  tables: ['account_settings'],
  async apply(events, tx) {
    // Last record per account wins: keeping only it makes the chunk one upsert (an upsert cannot
    // touch a row twice) with the same result as applying every record in turn.
    const last = new Map<string, AccountSettingsChanged>();
    for (const e of events) last.set(e.value.metadata.account_id.toLowerCase(), e.value);
    await tx.client.query(
      tx.named(
        'account-settings.upsert',
        (s) => `insert into ${qualified(s, 'account_settings')} (account_id, store_timezone, updated_at)
       select * from unnest($1::uuid[], $2::text[], $3::timestamptz[])
       on conflict (account_id) do update
         set store_timezone = excluded.store_timezone, updated_at = excluded.updated_at`,
      ),
      columnsOf(last.values(), (v) => [v.metadata.account_id, v.store_timezone, v.metadata.received_at]),
    );
  },
};
