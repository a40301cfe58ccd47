import { sql, type Kysely } from 'kysely';

/**
 * One-time recovery codes of the console's second factor (docs/console.md, "Recovery codes"): only
 * their SHA-256 is stored (each code is 80 random bits, so a digest cannot be reversed by trying);
 * each is taken once (`used_at`, one UPDATE).
 */
// Frozen in time: never edit a migration that has run; add a new one.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table control.recovery_codes (
      user_id uuid not null references control.users (id) on delete cascade,
      code_hash bytea not null,
      created_at timestamptz not null default now(),
      used_at timestamptz,
      primary key (user_id, code_hash)
    );
  `.execute(db);
}
