import { sql, type Kysely } from 'kysely';

/**
 * The console (issue 25, docs/console.md): its people (users, their memberships in accounts with a
 * role, operators who see every account), one-time invitations, server-side sessions, the audit log
 * of every change, and sign-in failures (rate limits and lockout). Its own
 * login role, holdfast_console: what it may touch is granted by `applyPrivileges`.
 */
// Frozen in time: never edit a migration that has run; add a new one.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    do $$
    begin
      if not exists (select from pg_roles where rolname = 'holdfast_console') then
        create role holdfast_console login;
      end if;
    exception when duplicate_object or unique_violation or insufficient_privilege then null;
    end $$;

    create table control.users (
      id uuid primary key,
      email text not null,
      -- argon2id (PHC string); null until the invitation is accepted
      password_hash text,
      -- base32 TOTP secret; null until enrolled
      totp_secret text,
      -- the last TOTP time step accepted: a code is taken once
      totp_last_step bigint,
      is_operator boolean not null default false,
      failed_sign_ins int not null default 0,
      locked_until timestamptz,
      created_at timestamptz not null default now(),
      disabled_at timestamptz
    );
    create unique index users_email on control.users (lower(email));

    create table control.memberships (
      user_id uuid not null references control.users (id) on delete cascade,
      account_id uuid not null references control.accounts (id) on delete cascade,
      role text not null check (role in ('owner', 'admin', 'analyst', 'viewer')),
      created_at timestamptz not null default now(),
      primary key (user_id, account_id)
    );
    create index memberships_by_account on control.memberships (account_id);

    create table control.invites (
      token_hash bytea primary key,
      user_id uuid not null references control.users (id) on delete cascade,
      account_id uuid references control.accounts (id) on delete cascade,
      created_at timestamptz not null default now(),
      expires_at timestamptz not null,
      used_at timestamptz
    );

    create table control.console_sessions (
      -- sha256 of the cookie's value: a leaked table opens no session
      id_hash bytea primary key,
      user_id uuid not null references control.users (id) on delete cascade,
      created_at timestamptz not null default now(),
      last_seen_at timestamptz not null default now(),
      expires_at timestamptz not null,
      -- null: the password was right, the second factor is still owed
      second_factor_at timestamptz
    );
    create index console_sessions_by_user on control.console_sessions (user_id);

    create table control.audit_log (
      id bigserial primary key,
      at timestamptz not null default now(),
      account_id uuid references control.accounts (id) on delete set null,
      actor_user_id uuid references control.users (id) on delete set null,
      action text not null,
      target text,
      detail jsonb not null default '{}'::jsonb
    );
    create index audit_log_by_account on control.audit_log (account_id, at desc);

    create table control.sign_in_failures (
      -- 'ip:<address>' or 'email:<sha256 of the lower-cased address>' (no address in clear)
      bucket text not null,
      at timestamptz not null default now()
    );
    create index sign_in_failures_by_bucket on control.sign_in_failures (bucket, at);
  `.execute(db);
}
