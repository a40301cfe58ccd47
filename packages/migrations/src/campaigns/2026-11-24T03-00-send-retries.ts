import { sql, type Kysely } from 'kysely';

// Frozen in time: never edit a migration that has run; add a new one.
// Provider failures are retried with backoff within a run (docs/campaigns.md, "Retries"): each send
// records its attempts (send_attempts), the last error class (last_error, e.g. provider_http_503) and,
// new here, whether that failure was retriable or permanent in the failure taxonomy.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table analytics.campaign_assignments
      add column last_failure_kind text check (last_failure_kind in ('retriable', 'permanent'));
  `.execute(db);
}
