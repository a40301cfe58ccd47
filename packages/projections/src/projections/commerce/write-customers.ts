import { qualified, type ProjectionTx } from '../../projection.js';
import { copyRows } from '../copy-rows.js';
import { columnsOf } from '../sql-arrays.js';
import type { CustomerState } from './customer-state.js';

// The rows are final (merged in memory with the chunk's records applied in log order), so the upsert
// only stores them: one statement for every customer the chunk created or changed.
const upsertSql = (schema: string) => `
  insert into ${qualified(schema, 'customers')} as c (account_id, customer_id, external_id, email, phone,
    name, address_street, address_city, address_state, address_zip, address_country,
    consent_marketing_email, consent_sms, consent_suppressed, consent_bounced, source_label,
    subscription_status, subscription_started_at, created_at, updated_at, consent_locked_email,
    consent_locked_sms, email_index, phone_index)
  select * from unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
    $8::text[], $9::text[], $10::text[], $11::text[], $12::boolean[], $13::boolean[], $14::boolean[],
    $15::boolean[], $16::text[], $17::text[], $18::timestamptz[], $19::timestamptz[], $20::timestamptz[],
    $21::boolean[], $22::boolean[], $23::text[], $24::text[])
  on conflict (account_id, customer_id) do update set
    external_id = excluded.external_id, email = excluded.email, phone = excluded.phone,
    name = excluded.name, address_street = excluded.address_street, address_city = excluded.address_city,
    address_state = excluded.address_state, address_zip = excluded.address_zip,
    address_country = excluded.address_country, consent_marketing_email = excluded.consent_marketing_email,
    consent_sms = excluded.consent_sms, consent_suppressed = excluded.consent_suppressed,
    consent_bounced = excluded.consent_bounced, source_label = excluded.source_label,
    subscription_status = excluded.subscription_status,
    subscription_started_at = excluded.subscription_started_at, updated_at = excluded.updated_at,
    consent_locked_email = excluded.consent_locked_email, consent_locked_sms = excluded.consent_locked_sms,
    email_index = excluded.email_index, phone_index = excluded.phone_index`;

const COLUMNS = [
  'account_id',
  'customer_id',
  'external_id',
  'email',
  'phone',
  'name',
  'address_street',
  'address_city',
  'address_state',
  'address_zip',
  'address_country',
  'consent_marketing_email',
  'consent_sms',
  'consent_suppressed',
  'consent_bounced',
  'source_label',
  'subscription_status',
  'subscription_started_at',
  'created_at',
  'updated_at',
  'consent_locked_email',
  'consent_locked_sms',
  'email_index',
  'phone_index',
];

const valuesOf = (c: CustomerState): unknown[] => [
  c.accountId,
  c.customerId,
  c.externalId,
  c.emailClear,
  c.phoneClear,
  c.name,
  c.address.street,
  c.address.city,
  c.address.state,
  c.address.zip,
  c.address.country,
  c.consentMarketingEmail,
  c.consentSms,
  c.consentSuppressed,
  c.consentBounced,
  c.sourceLabel,
  c.subscriptionStatus,
  c.subscriptionStartedAt,
  c.createdAt,
  c.updatedAt,
  c.consentLockedEmail,
  c.consentLockedSms,
  // The identity keys are the blind indexes (docs/privacy.md).
  c.email,
  c.phone,
];

/** Stores the customers a chunk created (COPY) and the stored ones it changed (one upsert). */
export async function writeCustomers(
  tx: ProjectionTx,
  { created, changed }: { created: readonly CustomerState[]; changed: readonly CustomerState[] },
): Promise<void> {
  await copyRows(tx.client, qualified(tx.schema, 'customers'), COLUMNS, created.map(valuesOf));
  if (changed.length)
    await tx.client.query(tx.named('write-customers.upsert', upsertSql), columnsOf(changed, valuesOf));
}
