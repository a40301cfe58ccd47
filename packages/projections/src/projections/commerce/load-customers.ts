import { qualified, type ProjectionTx } from '../../projection.js';
import type { CustomerState } from './customer-state.js';
import type { IdentityKeys } from './identity-index.js';
import { instantKey } from './instant-key.js';

/** The (account, value) pairs of one key that a chunk carries, deduplicated, as unnest arrays. */
export class KeySet {
  readonly accounts: string[] = [];
  readonly values: string[] = [];
  private readonly seen = new Set<string>();

  add(accountId: string, value: string | null): void {
    if (value === null) return;
    const key = `${accountId}\u0000${value}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.accounts.push(accountId);
    this.values.push(value);
  }

  has(accountId: string, value: string): boolean {
    return this.seen.has(`${accountId}\u0000${value}`);
  }
}

/** The identity keys one record of the chunk will resolve with. */
export interface IdentityLookup {
  readonly accountId: string;
  readonly keys: IdentityKeys;
}

// Timestamps travel as canonical UTC text with microseconds: a JS Date would round them to
// milliseconds and the rewritten row would differ from one written in another chunk.
const ts = (col: string) => `to_char(c.${col} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as ${col}`;
export const CUSTOMER_COLUMNS = `c.account_id, c.customer_id, c.external_id, c.email, c.phone, c.name, c.address_street,
  c.address_city, c.address_state, c.address_zip, c.address_country, c.consent_marketing_email,
  c.consent_sms, c.consent_suppressed, c.consent_bounced, c.source_label, c.subscription_status,
  ${ts('subscription_started_at')}, ${ts('created_at')}, ${ts('updated_at')}, c.consent_locked_email,
  c.consent_locked_sms, c.email_index, c.phone_index`;

/** A customers row as `CUSTOMER_COLUMNS` selects it. */
export interface CustomerRow {
  account_id: string;
  customer_id: string;
  external_id: string | null;
  email: string | null;
  phone: string | null;
  name: string | null;
  address_street: string | null;
  address_city: string | null;
  address_state: string | null;
  address_zip: string | null;
  address_country: string | null;
  consent_marketing_email: boolean;
  consent_sms: boolean;
  consent_suppressed: boolean;
  consent_bounced: boolean;
  consent_locked_email: boolean;
  consent_locked_sms: boolean;
  source_label: string;
  subscription_status: string | null;
  subscription_started_at: string | null;
  created_at: string;
  updated_at: string;
  email_index: string | null;
  phone_index: string | null;
}

/**
 * Loads every stored customer that a record of the chunk could resolve to (emails and phones as blind
 * indexes: `IdentityLookup.keys`), set-based: first by
 * external id (one index lookup per distinct id, all in one statement), then by email and phone only
 * for the records whose external id is absent or unknown, since a record found by external id never
 * looks further. That second step is small on a backfill, where most orders name known customers.
 */
export async function loadCustomers(
  tx: ProjectionTx,
  lookups: readonly IdentityLookup[],
): Promise<CustomerState[]> {
  const externalIds = new KeySet();
  for (const l of lookups) externalIds.add(l.accountId, l.keys.externalId);
  const byId = new Map<string, CustomerRow>();
  const keep = (rows: CustomerRow[]) => rows.forEach((r) => byId.set(r.customer_id, r));
  if (externalIds.values.length) {
    const { rows } = await tx.client.query<CustomerRow>(
      tx.named(
        'load-customers.by-external-id',
        (s) => `select ${CUSTOMER_COLUMNS} from unnest($1::uuid[], $2::text[]) k(a, v)
         join ${qualified(s, 'customers')} c on c.account_id = k.a and c.external_id = k.v and c.external_id is not null`,
      ),
      [externalIds.accounts, externalIds.values],
    );
    keep(rows);
  }
  const known = new KeySet();
  for (const r of byId.values()) known.add(r.account_id, r.external_id);
  const emails = new KeySet();
  const phones = new KeySet();
  for (const { accountId, keys } of lookups) {
    if (keys.externalId !== null && known.has(accountId, keys.externalId)) continue;
    emails.add(accountId, keys.email);
    phones.add(accountId, keys.phone);
  }
  if (emails.values.length || phones.values.length) {
    const { rows } = await tx.client.query<CustomerRow>(
      tx.named(
        'load-customers.by-email-or-phone',
        (s) => `select ${CUSTOMER_COLUMNS} from unnest($1::uuid[], $2::text[]) k(a, v)
         join ${qualified(s, 'customers')} c on c.account_id = k.a and c.email_index = k.v and c.email_index is not null
       union all
       select ${CUSTOMER_COLUMNS} from unnest($3::uuid[], $4::text[]) k(a, v)
         join ${qualified(s, 'customers')} c on c.account_id = k.a and c.phone_index = k.v and c.phone_index is not null`,
      ),
      [emails.accounts, emails.values, phones.accounts, phones.values],
    );
    keep(rows);
  }
  return [...byId.values()].map(toState);
}

export function toState(r: CustomerRow): CustomerState {
  return {
    accountId: r.account_id,
    customerId: r.customer_id,
    externalId: r.external_id,
    // Identity resolution keys on the blind indexes; the values in clear only fill the row.
    email: r.email_index,
    phone: r.phone_index,
    emailClear: r.email,
    phoneClear: r.phone,
    name: r.name,
    address: {
      street: r.address_street,
      city: r.address_city,
      state: r.address_state,
      zip: r.address_zip,
      country: r.address_country,
    },
    consentMarketingEmail: r.consent_marketing_email,
    consentSms: r.consent_sms,
    consentSuppressed: r.consent_suppressed,
    consentBounced: r.consent_bounced,
    consentLockedEmail: r.consent_locked_email,
    consentLockedSms: r.consent_locked_sms,
    sourceLabel: r.source_label,
    subscriptionStatus: r.subscription_status,
    subscriptionStartedAt: r.subscription_started_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    createdUs: instantKey(r.created_at),
  };
}

/** The dedup keys of `table` (customer_events, zero_party_submissions) already stored, as `account\0key`. */
export async function loadStoredDedupKeys(
  tx: ProjectionTx,
  table: 'customer_events' | 'zero_party_submissions',
  keys: KeySet,
): Promise<Set<string>> {
  if (!keys.values.length) return new Set();
  const { rows } = await tx.client.query<{ account_id: string; dedup_key: string }>(
    tx.named(
      `load-customers.stored-keys-${table}`,
      (s) => `select t.account_id, t.dedup_key from unnest($1::uuid[], $2::text[]) k(a, v)
       join ${qualified(s, table)} t on t.account_id = k.a and t.dedup_key = k.v`,
    ),
    [keys.accounts, keys.values],
  );
  return new Set(rows.map((r) => `${r.account_id}\u0000${r.dedup_key}`));
}
