import { sql, type Kysely } from 'kysely';

/**
 * The console's TOTP secrets sealed at rest (docs/console.md, "Second factor at rest"): envelope
 * encryption under the console's keys (HOLDFAST_CONSOLE_KEYS, `ConsoleKeyring`), the key id stored
 * beside each so the keys can be rotated (`rewrapConsoleTotpSecrets`). A migration holds no key, so
 * the secrets enrolled before this stay in `totp_secret` until the console's next start seals them
 * (`sealConsoleTotpSecrets`, one row per transaction, idempotent) and clears the column; the check
 * makes a row hold one form or the other, never both.
 */
// Frozen in time: never edit a migration that has run; add a new one.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table control.users
      add column totp_key_id text,
      add column totp_wrapped_key bytea,
      add column totp_ciphertext bytea,
      add constraint users_totp_one_form check (
        (totp_key_id is null and totp_wrapped_key is null and totp_ciphertext is null)
        or (totp_secret is null and totp_key_id is not null and totp_wrapped_key is not null
            and totp_ciphertext is not null)
      );
  `.execute(db);
}
