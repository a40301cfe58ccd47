import { sql, type Kysely } from 'kysely';
import { namedRaw } from '../named-sql.js';
import {
  adoptSchema,
  canActAs,
  enableAccountRowSecurity,
  qualified,
  SERVICE_ROLES,
  serviceRolesExist,
  type RunSql,
  type ServiceRole,
  ANALYST_GRANTS_TABLE,
} from './service-roles.js';

const { gateway, projector, recompute, dispatcher, analyst, operator, console: consoleRole } = SERVICE_ROLES;

/** Schemas a writer service owns (it runs DDL in them at run time: partitions, checkpoint tables). */
const OWNED_SCHEMAS: ReadonlyArray<readonly [schema: string, owner: ServiceRole]> = [
  ['analytics', recompute],
  ['recompute', recompute],
  ['dispatcher', dispatcher],
];

/**
 * The control plane, table by table: nothing here is granted to the projector, and the dispatcher sees
 * the subscriptions it delivers to only. Column lists (`update (last_used_at)`) keep the gateway from
 * rewriting a key or a token. Tables added later by other migrations get nothing until listed here.
 */
const CONTROL_GRANTS: ReadonlyArray<readonly [table: string, role: ServiceRole, privileges: string]> = [
  ['accounts', gateway, 'select'],
  ['api_keys', gateway, 'select, update (last_used_at)'],
  ['tiles', gateway, 'select, update (first_call_at)'],
  ['providers', gateway, 'select'],
  ['pixel_keys', gateway, 'select'],
  ['pixel_origins', gateway, 'select'],
  ['rate_counters', gateway, 'select, insert, update, delete'],
  // A sync task whose command was not appended is abandoned (failed, append_failed), never deleted.
  ['sync_tasks', gateway, 'select, insert, update (status, reason, finished_at)'],
  // A task's command, written with its row; the gateway's relay appends it and deletes it.
  ['sync_outbox', gateway, 'select, insert, update (attempts, last_error), delete'],
  // The settings outbox (docs/console.md): the console queues a timezone change, the gateway's
  // relay appends it to the log and deletes it.
  ['settings_outbox', gateway, 'select, update (attempts, last_error), delete'],
  ['accounts', recompute, 'select'],
  ['providers', recompute, 'select'],
  // The recompute logs in to the provider (SMTP password, API token). The gateway checks the SMS
  // provider's signature on inbound STOP replies with that token only, sealed apart under
  // HOLDFAST_INBOUND_KEYS: it never reads the master-key-sealed secrets (CONTROL_REVOKES).
  ['provider_secrets', recompute, 'select'],
  ['provider_inbound_secrets', gateway, 'select'],
  ['sync_tasks', recompute, 'select, insert, update'],
  ['sync_outbox', recompute, 'select, insert, update (attempts, last_error), delete'],
  // Send claims (POST /v1/sends, docs/read-api.md): the gateway claims and confirms; the recompute
  // reads them for the cap and the cool-down and folds a confirmed claim into its ledger.
  ['send_claims', gateway, 'select, insert, update (confirmed_at, sent_at)'],
  ['send_claim_pages', gateway, 'select, insert'],
  ['send_claim_members', gateway, 'select, insert'],
  ['send_claims', recompute, 'select, update (folded_at)'],
  ['send_claim_pages', recompute, 'select'],
  ['send_claim_members', recompute, 'select'],
  // The dispatcher signs with the sealed secrets and, at start, seals plain-text ones left from before
  // secrets were encrypted (a new sealed row, then the plain column cleared).
  ['webhook_subscriptions', dispatcher, 'select, update (secret)'],
  ['webhook_secrets', dispatcher, 'select, insert'],
  // The planned outbound events (docs/webhooks.md, "Event types"): the recompute records each
  // occurrence beside the change it announces (an occurrence recorded before is left alone); the
  // dispatcher fans them out to the subscriptions.
  ['outbound_events', recompute, 'select (event_id, account_id, event_type, subject), insert'],
  ['outbound_events', dispatcher, 'select, update (fanned_out_at)'],
  // /v1/webhooks (docs/webhooks.md): the gateway creates, lists, removes subscriptions and rotates
  // their secrets, sealed to the dispatcher's public key. Column lists: it never reads a legacy
  // plain-text secret, nor any sealed secret (ciphertext, data key), which it could not open anyway.
  [
    'webhook_subscriptions',
    gateway,
    'select (id, account_id, url, event_types, created_at, disabled_at), ' +
      'insert (id, account_id, url, secret, event_types), update (disabled_at)',
  ],
  [
    'webhook_secrets',
    gateway,
    'select (subscription_id, expires_at), ' +
      'insert (id, subscription_id, key_id, wrapped_key, ciphertext, prefix), update (expires_at)',
  ],
  // The console (docs/console.md): its own people, sessions and audit log; the account pages' changes
  // through the same functions as the CLI (keys, tiles, pixel keys, store settings). It reads no
  // secret: it shows prefixes, mints keys through hashes, and seals the webhook secrets it mints to
  // the dispatcher's public key (as the gateway does), which it can neither read back nor open.
  ['accounts', consoleRole, 'select, update (storefront_domain)'],
  ['api_keys', consoleRole, 'select, insert, update (expires_at, revoked_at)'],
  ['tiles', consoleRole, 'select, insert, update (token_hash, token_prefix, connected_at, disconnected_at)'],
  ['providers', consoleRole, 'select'],
  ['pixel_keys', consoleRole, 'select, insert, update (revoked_at)'],
  ['pixel_origins', consoleRole, 'select, insert, delete'],
  [
    'webhook_subscriptions',
    consoleRole,
    'select (id, account_id, url, event_types, created_at, disabled_at), ' +
      'insert (id, account_id, url, secret, event_types), update (disabled_at)',
  ],
  [
    'webhook_secrets',
    consoleRole,
    'select (subscription_id, expires_at), ' +
      'insert (id, subscription_id, key_id, wrapped_key, ciphertext, prefix), update (expires_at)',
  ],
  ['sync_tasks', consoleRole, 'select'],
  ['users', consoleRole, 'select, insert, update'],
  ['memberships', consoleRole, 'select, insert, update, delete'],
  ['invites', consoleRole, 'select, insert, update (used_at)'],
  ['console_sessions', consoleRole, 'select, insert, update (last_seen_at), delete'],
  ['audit_log', consoleRole, 'select, insert'],
  ['settings_outbox', consoleRole, 'select, insert'],
  ['recovery_codes', consoleRole, 'select, insert, update (used_at), delete'],
  ['sign_in_failures', consoleRole, 'select, insert, delete'],
];

/**
 * The dispatcher's tables the gateway reads and touches for /v1/webhooks/{id}/deliveries and
 * redelivery (the body, the lease and the attempt counters stay the dispatcher's). Also granted by the
 * dispatcher's own migration, which may run after this.
 */
export const GATEWAY_DISPATCHER_GRANTS = [
  'grant usage on schema dispatcher to holdfast_gateway',
  'grant select (delivery_id, account_id, subscription_id, event, source_id, status, attempts, next_attempt_at, ' +
    'created_at, delivered_at, last_status_code, last_error), ' +
    'update (status, next_attempt_at, lease_until) on dispatcher.deliveries to holdfast_gateway',
  'grant select on dispatcher.delivery_attempts to holdfast_gateway',
] as const;

/**
 * Grants taken back from databases an earlier release granted them on (GRANT is additive, so a
 * privilege dropped from CONTROL_GRANTS would otherwise stay).
 */
const CONTROL_REVOKES: ReadonlyArray<readonly [table: string, role: ServiceRole, privileges: string]> = [
  // Sealed under the master keys, which the gateway no longer holds (2026-11-27).
  ['provider_secrets', gateway, 'all'],
];

/**
 * The lock every change to grants in a database takes first (this function, and every migration:
 * `migrateSchema`). Concurrent GRANTs on one object fail with "tuple concurrently updated"; kysely's
 * migration lock does not cover this function, so without a lock of their own a migration's GRANT
 * (the recompute's analytics and campaigns migrations) collided with the gateway's or the dispatcher's
 * re-apply of the grants when the services started together.
 */
export const PRIVILEGES_LOCK_SQL = `select pg_advisory_xact_lock(hashtext('holdfast.privileges'))`;

/**
 * The analyst grants table: the analyst reads its own login's rows (the row-level security of every
 * account-keyed table reads them as the analyst), the operator administers all of them (the CLI's
 * `holdfast analysts`), nobody else reads or writes them. The projector gets USAGE on `control` (no
 * table) because creating its tables' policies resolves the table's name. Returns the statements.
 */
async function analystGrantsPrivileges(run: RunSql): Promise<string[]> {
  const { rows } = await run(
    `select array(select policyname::text from pg_policies
                   where schemaname = 'control' and tablename = 'analyst_grants') as policies`,
  );
  const policies = (rows[0] as { policies: string[] }).policies;
  const statements = [
    `grant usage on schema control to ${analyst}, ${projector}`,
    `grant select on ${ANALYST_GRANTS_TABLE} to ${analyst}`,
    `alter table ${ANALYST_GRANTS_TABLE} enable row level security`,
  ];
  if (!policies.includes('holdfast_analyst_own_grants'))
    statements.push(
      `create policy holdfast_analyst_own_grants on ${ANALYST_GRANTS_TABLE} for select to ${analyst} using (login = session_user)`,
    );
  if (!policies.includes('holdfast_operator_all_grants'))
    statements.push(
      `create policy holdfast_operator_all_grants on ${ANALYST_GRANTS_TABLE} to ${operator} using (true) with check (true)`,
    );
  return statements;
}

/** The campaign settings the console's campaign page reads and changes. */
const CONSOLE_ANALYTICS_WRITES = ['campaign_type_settings', 'campaign_account_settings'] as const;

/**
 * The analytics tables the gateway's read routes read (SELECT only, through the partitioned parents):
 * the scores and lift reports, and for GET /v1/reports/{name} the model fits, the aggregates the
 * recompute keeps for the dashboards (lifecycle mix, score bins, cohort activity, the campaign decisions
 * counted per type and status and the attributed totals per type: never the ledger's rows).
 */
const GATEWAY_ANALYTICS_READS = [
  'customer_scores',
  'lift_reports',
  'model_fits',
  'lifecycle_mix',
  'score_bins',
  'cohort_activity',
  'campaign_decision_counts',
  'campaign_attributed_totals',
  // A send claim applies the account's frequency cap (POST /v1/sends).
  'campaign_account_settings',
] as const;

/**
 * The ledger columns a send claim reads for the cool-down and the frequency cap (who was decided
 * what, when): never a tracking id, a link or a provider's error.
 */
const GATEWAY_LEDGER_COLUMNS = 'account_id, customer_id, campaign_type, status, assigned_at';

/**
 * The privacy keys (docs/privacy.md), table by table: the gateway creates keys as it encrypts and
 * reads the suppressions; the projector reads keys to decrypt and creates an account's index key when
 * it folds records written before encryption (their indexes are computed at fold time). Nothing else
 * (recompute, dispatcher, analyst) sees the schema; the operator (CLI: erase, rewrap) has it all.
 */
const PRIVACY_GRANTS: ReadonlyArray<readonly [table: string, role: ServiceRole, privileges: string]> = [
  ['account_keys', gateway, 'select, insert'],
  ['subject_keys', gateway, 'select, insert'],
  ['key_generation', gateway, 'select'],
  ['suppressions', gateway, 'select'],
  ['account_keys', projector, 'select, insert'],
  ['subject_keys', projector, 'select'],
  ['key_generation', projector, 'select'],
  ['erased_subjects', projector, 'select'],
  ['suppressions', projector, 'select'],
  // Erasure and access requests: the gateway queues them and reads their status (and an export's
  // sealed document); the projector process runs them: it destroys the keys, writes suppressions,
  // moves the requests and seals, then deletes, export documents.
  ['erasure_requests', gateway, 'select, insert'],
  ['person_exports', gateway, 'select, insert'],
  ['erasure_requests', projector, 'select, update'],
  ['person_exports', projector, 'select, update, delete'],
  ['subject_keys', projector, 'delete'],
  ['erased_subjects', projector, 'insert'],
  ['key_generation', projector, 'update'],
  ['suppressions', projector, 'insert'],
];

/**
 * Grants every service role what it needs outside the read models (those are the projector's:
 * `ensureReadModelSchema`), gives the writer services their schemas, and turns on the analyst's
 * row-level security in `analytics`. Run after every migration run by the migration owner; a no-op
 * for a service role (it cannot grant) or when the roles do not exist. Idempotent; serialised per
 * database (concurrent GRANTs on one object fail with "tuple concurrently updated").
 *
 * @example
 * await migrateToLatest(db); // calls it
 */
export async function applyPrivileges(db: Kysely<unknown>): Promise<void> {
  await db.transaction().execute(async (trx) => {
    // Grants, DDL and pg_catalog reads: raw SQL, under one name.
    const run: RunSql = (text) => namedRaw('apply-privileges.grant', sql.raw(text)).execute(trx);
    if (!(await serviceRolesExist(run))) return;
    for (const role of [projector, recompute, dispatcher, operator] as const)
      if (!(await canActAs(run, role))) return;
    await run(PRIVILEGES_LOCK_SQL);
    // The recompute keeps its checkpoints in a schema no migration creates; its role may not create schemas.
    await run(`create schema if not exists recompute authorization ${recompute}`);
    const { rows } = await run(
      `select n.nspname as schema, c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where c.relkind in ('r', 'p', 'v') and (n.nspname in ('control', 'analytics', 'recompute', 'dispatcher', 'fx', 'privacy')
           or (n.nspname = 'public' and c.relname like 'holdfast\\_%migration%'))`,
    );
    const existing = new Set(
      (rows as { schema: string; name: string }[]).map((r) => `${r.schema}.${r.name}`),
    );
    const schemas = new Set((rows as { schema: string }[]).map((r) => r.schema));
    const statements: string[] = [];
    const services = [gateway, projector, recompute, dispatcher, consoleRole].join(', ');
    // Every service reads the migration history at start (kysely checks it is up to date); none writes it.
    for (const t of existing)
      if (t.startsWith('public.')) {
        statements.push(`grant select on ${qualified('public', t.slice(7))} to ${services}`);
        statements.push(
          `grant select, insert, update, delete on ${qualified('public', t.slice(7))} to ${operator}`,
        );
      }
    // The operator runs migrations and rebuilds (a rebuild creates schemas beside the live one).
    const { rows: db } = await run(
      `select current_database() as name, has_database_privilege('${operator}', current_database(), 'CREATE') as ok`,
    );
    const database = db[0] as { name: string; ok: boolean };
    if (!database.ok)
      statements.push(`grant create on database "${database.name.replace(/"/g, '""')}" to ${operator}`);
    if (schemas.has('control')) {
      statements.push(
        `grant usage on schema control to ${gateway}, ${recompute}, ${dispatcher}, ${consoleRole}, ${operator}`,
      );
      if (existing.has('control.audit_log'))
        statements.push(`grant usage on sequence control.audit_log_id_seq to ${consoleRole}`);
      statements.push(`grant select, insert, update, delete on all tables in schema control to ${operator}`);
      for (const [table, role, privileges] of CONTROL_REVOKES)
        if (existing.has(`control.${table}`))
          statements.push(`revoke ${privileges} on ${qualified('control', table)} from ${role}`);
      for (const [table, role, privileges] of CONTROL_GRANTS)
        if (existing.has(`control.${table}`))
          statements.push(`grant ${privileges} on ${qualified('control', table)} to ${role}`);
      if (existing.has(ANALYST_GRANTS_TABLE)) statements.push(...(await analystGrantsPrivileges(run)));
    }
    // No role but the owner creates objects in `public` (PostgreSQL 15 creates databases so; one
    // upgraded from an older release still lets PUBLIC create there, and an analyst could plant a
    // function or view). A warning, not an error, when the migration owner does not own `public`.
    statements.push(`revoke create on schema public from public`);
    if (schemas.has('fx')) {
      // Reference data every reader converts with. Rates are insert-only, for the operator too: a
      // stored rate never changes, so a rebuild converts exactly as live did.
      statements.push(
        `grant usage on schema fx to ${projector}, ${recompute}, ${gateway}, ${analyst}, ${operator}`,
      );
      statements.push(`grant select on all tables in schema fx to ${projector}, ${recompute}, ${gateway}`);
      // The console shows and changes the reporting currency with the CLI's function
      // (setReportingCurrency): it reads the rates, sets the account's currency, bumps the version.
      statements.push(`grant usage on schema fx to ${consoleRole}`);
      if (existing.has('fx.account_currencies'))
        statements.push(
          `grant select, insert (account_id, reporting_currency), update (reporting_currency, set_at) on fx.account_currencies to ${consoleRole}`,
        );
      if (existing.has('fx.rates')) statements.push(`grant select on fx.rates to ${consoleRole}`);
      if (existing.has('fx.version'))
        statements.push(`grant select, update (version) on fx.version to ${consoleRole}`);
      statements.push(`grant select on fx.rates to ${analyst}`);
      statements.push(`grant select, insert on fx.rates, fx.imports to ${operator}`);
      statements.push(`grant select, insert, update on fx.account_currencies, fx.version to ${operator}`);
    }
    if (schemas.has('privacy')) {
      statements.push(`grant usage on schema privacy to ${gateway}, ${projector}, ${operator}`);
      statements.push(`grant select, insert, update, delete on all tables in schema privacy to ${operator}`);
      for (const [table, role, privileges] of PRIVACY_GRANTS)
        if (existing.has(`privacy.${table}`))
          statements.push(`grant ${privileges} on ${qualified('privacy', table)} to ${role}`);
    }
    if (existing.has('dispatcher.deliveries') && existing.has('dispatcher.delivery_attempts'))
      statements.push(...GATEWAY_DISPATCHER_GRANTS);
    // The console's webhook page: deliveries with their attempts, and a redelivery (pending again).
    if (existing.has('dispatcher.deliveries') && existing.has('dispatcher.delivery_attempts'))
      statements.push(
        `grant usage on schema dispatcher to ${consoleRole}`,
        `grant select, update (status, next_attempt_at, lease_until) on dispatcher.deliveries to ${consoleRole}`,
        `grant select on dispatcher.delivery_attempts to ${consoleRole}`,
      );
    if (statements.length) await run(statements.join(';\n'));
    for (const [schema, owner] of OWNED_SCHEMAS)
      if (schemas.has(schema)) await adoptSchema(run, schema, owner);
    if (schemas.has('analytics')) {
      // An earlier migration granted the analyst every analytics table and those created later by the
      // migration owner: that would include the recompute's per-account partitions, readable directly
      // without the account filter. The analyst gets the account-keyed parents only.
      await run(`grant usage on schema analytics to ${analyst}, ${operator};
        alter default privileges in schema analytics revoke all on tables from ${analyst};
        revoke all on all tables in schema analytics from ${analyst}`);
      // The analyst reads the account-keyed tables through their parents (partitions stay private).
      const { rows: keyed } = await run(
        `select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
          where n.nspname = 'analytics' and c.relkind in ('r', 'p') and not c.relispartition
            and exists (select from pg_attribute a where a.attrelid = c.oid and a.attname = 'account_id')`,
      );
      const tables = (keyed as { name: string }[]).map((r) => qualified('analytics', r.name));
      if (tables.length) await run(`grant select on ${tables.join(', ')} to ${analyst}`);
      // An access request's export (run by the projector process) reads a person's scores and
      // campaign decisions, of any account: its policy (created with the table's first policies; a
      // database whose policies predate it needs them dropped once and this re-run).
      const exported = ['customer_scores', 'campaign_assignments', 'attributions'].filter((n) =>
        existing.has(`analytics.${n}`),
      );
      if (exported.length)
        await run(`grant usage on schema analytics to ${projector};
          grant select on ${exported.map((n) => qualified('analytics', n)).join(', ')} to ${projector}`);
      // The gateway's /v1/ read routes (docs/read-api.md): the scores, the lift reports, and the
      // parents only. Each of its reads filters on the key's account itself; under row-level
      // security it gets the permissive all-accounts policy, as the read models give it.
      const gatewayReads = GATEWAY_ANALYTICS_READS.filter((t) => existing.has(`analytics.${t}`));
      if (gatewayReads.length)
        await run(`grant usage on schema analytics to ${gateway};
          grant select on ${gatewayReads.map((t) => qualified('analytics', t)).join(', ')} to ${gateway}`);
      if (existing.has('analytics.campaign_assignments'))
        await run(`grant select (${GATEWAY_LEDGER_COLUMNS}) on analytics.campaign_assignments to ${gateway}`);
      // The console's campaign page: which types are on, the frequency cap (the CLI's functions).
      const consoleTables = CONSOLE_ANALYTICS_WRITES.filter((t) => existing.has(`analytics.${t}`));
      if (consoleTables.length)
        await run(`grant usage on schema analytics to ${consoleRole};
          grant select, insert, update on ${consoleTables.map((t) => qualified('analytics', t)).join(', ')} to ${consoleRole}`);
      // One all-accounts policy for them (created with the table's first policies, widened after).
      await enableAccountRowSecurity(run, 'analytics', [projector, gateway, consoleRole]);
    }
  });
}
