import { sql, type Kysely } from 'kysely';

/**
 * Read keys (issue 24): a key kind that reads the /v1/ read routes and never writes (prefix
 * rk_live_), and the account's choice whether its ingest keys may read too (off by default).
 * control.accounts already notifies `holdfast_credentials` on change, so a gateway drops its cached
 * answer within a second of `holdfast accounts set-read-with-ingest-key`.
 */
// Frozen in time: never edit a migration that has run; add a new one.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table control.api_keys drop constraint if exists api_keys_kind_check;
    alter table control.api_keys add constraint api_keys_kind_check
      check (kind in ('ingest_live', 'ingest_test', 'outbound', 'read_live'));
    alter table control.accounts add column read_with_ingest_key boolean not null default false;
  `.execute(db);
}
