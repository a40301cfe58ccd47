import { sql, type Kysely } from 'kysely';

/**
 * An erasure may name a browser (`anonymous_id`, not a spec field): a browser never stitched to a
 * person cannot be found through one. Stored as its blind index, like the other identifiers; a request
 * must name at least one of the four.
 */
// Frozen in time: never edit a migration that has run; add a new one.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table privacy.erasure_requests add column anonymous_id_index text;
    alter table privacy.erasure_requests drop constraint erasure_requests_check;
    alter table privacy.erasure_requests add constraint erasure_requests_names_someone
      check (coalesce(external_id_index, email_index, phone_index, anonymous_id_index) is not null);
  `.execute(db);
}
