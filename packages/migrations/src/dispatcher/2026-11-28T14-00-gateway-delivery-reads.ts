import { sql, type Kysely } from 'kysely';

/**
 * /v1/webhooks/{id}/deliveries and redelivery (issue 24): the gateway's role reads the delivery log
 * (not the bodies) and may put a failed delivery back to pending. Granted here because this schema is
 * the dispatcher's and may be created after the control plane's privileges were applied (which grant
 * the same, `GATEWAY_DISPATCHER_GRANTS`); skipped where the service roles do not exist (development).
 */
// Frozen in time: never edit a migration that has run; add a new one.
export async function up(db: Kysely<unknown>): Promise<void> {
  const { rows } = await sql<{ n: number }>`
    select count(*)::int as n from pg_roles where rolname = 'holdfast_gateway'`.execute(db);
  if (!rows[0]?.n) return;
  await sql`
    grant usage on schema dispatcher to holdfast_gateway;
    grant select (delivery_id, account_id, subscription_id, event, source_id, status, attempts, next_attempt_at,
                  created_at, delivered_at, last_status_code, last_error),
          update (status, next_attempt_at, lease_until)
      on dispatcher.deliveries to holdfast_gateway;
    grant select on dispatcher.delivery_attempts to holdfast_gateway;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const { rows } = await sql<{ n: number }>`
    select count(*)::int as n from pg_roles where rolname = 'holdfast_gateway'`.execute(db);
  if (!rows[0]?.n) return;
  await sql`
    revoke all on dispatcher.deliveries, dispatcher.delivery_attempts from holdfast_gateway;
    revoke usage on schema dispatcher from holdfast_gateway;
  `.execute(db);
}
