import { sql, type Kysely } from 'kysely';

/**
 * An erasure naming a browser (`anonymous_id`) with `suppress` suppresses that browser too: its blind
 * index (kind `anonymous_id`) joins the suppressions, and the pixel collector drops its later events.
 */
// Frozen in time: never edit a migration that has run; add a new one.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table privacy.suppressions drop constraint suppressions_kind_check;
    alter table privacy.suppressions add constraint suppressions_kind_check
      check (kind in ('external_id', 'email', 'phone', 'anonymous_id'));
  `.execute(db);
}
