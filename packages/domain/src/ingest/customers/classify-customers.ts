import { CUSTOMER_ROW_FIELDS } from '@holdfast/contracts/http';
import type { CustomerRowInput } from '@holdfast/contracts';
import { normalizeAddress, normalizeConsent } from '../shared/address-consent.js';
import type { NormalizedAddress, NormalizedConsent } from '../shared/address-consent.js';
import type { SuppressionCheck } from '../../privacy/suppression.js';
import { createPhoneNormalizer } from '../shared/normalize-phone.js';
import { parseTimestamp } from '../shared/parse-timestamp.js';
import type { RowError, RowWarning } from '../shared/row-issue.js';
import { blankToNull, isBlank, normalizeEmail } from '../shared/text.js';

/** A customer row as stored and appended to the log. */
export interface NormalizedCustomer {
  external_id: string | null;
  email: string | null;
  phone: string | null;
  name: string | null;
  /** `null` unless street, city or zip is present; country defaults to 'US'. */
  address: NormalizedAddress | null;
  /** A `null` key = omitted = keep current; `null` overall when no key is set. */
  consent: NormalizedConsent | null;
  /** Default 'custom-api'. */
  source_label: string;
  subscription_status: 'active' | 'paused' | 'cancelled' | null;
  subscription_started_at: string | null;
}

/** Counters of POST /ingest/customers; `received = customers_upserted + skipped_no_identity + skipped_suppressed`. */
export interface CustomerCounters {
  readonly received: number;
  readonly customers_upserted: number;
  readonly skipped_no_identity: number;
  /** Rows naming a suppressed identifier (not a spec counter: added beside them). */
  readonly skipped_suppressed: number;
  /** Upserted rows that carry a subscription_status. */
  readonly subscriptions_applied: number;
}

/** Warning codes of the customers dry run (the spec leaves this shape open). */
export type CustomerWarningCode =
  | 'unknown_fields_ignored'
  | 'invalid_phone_ignored'
  | 'naive_timestamp_read_as_utc'
  | 'unparseable_timestamp_ignored'
  | 'address_ignored_without_street_city_or_zip';

/** A skipped row, for the dry run. */
export type CustomerRowError = RowError<
  { external_id: string | null },
  'no_usable_identity' | 'suppressed_identity'
>;

/** A row-level warning, for the dry run; `fields` names the fields concerned. */
export type CustomerRowWarning = RowWarning<{ external_id: string | null }, CustomerWarningCode>;

/** The classification of one customers batch. */
export interface CustomersClassification {
  readonly counters: CustomerCounters;
  /** One per upserted row, in row order (rows are upserted one by one: no in-batch dedup). */
  readonly customers: readonly NormalizedCustomer[];
  readonly errors: readonly CustomerRowError[];
  readonly warnings: readonly CustomerRowWarning[];
}

const KNOWN_FIELDS = new Set(CUSTOMER_ROW_FIELDS);

function hasAnyValue(value: unknown): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    Object.values(value).some((v) => typeof v === 'string' && !isBlank(v))
  );
}

/**
 * Classifies the rows of a validated customers batch (same function for the real call and the dry run).
 *
 * Decisions:
 * - identity = external_id (verbatim unless blank), email (trimmed, lower-cased), phone (E.164, US
 *   default); with none of them the row is skipped (`skipped_no_identity`, error `no_usable_identity`).
 *   An invalid phone becomes `null` (warning `invalid_phone_ignored` when the row is kept);
 * - rows are not deduplicated: each is one upsert, in order, so a repeated customer counts twice in
 *   `customers_upserted` (identity resolution merges them downstream);
 * - `subscriptions_applied` counts upserted rows whose subscription_status is not null;
 * - subscription_started_at is parsed like order_date: naive → read as UTC (warning
 *   `naive_timestamp_read_as_utc`); unparseable → `null` = leave the stored value alone (warning
 *   `unparseable_timestamp_ignored`), never a 422 and never a skipped row;
 * - address and consent: see `normalizeAddress` / `normalizeConsent`; an address with only state or
 *   country is dropped (warning `address_ignored_without_street_city_or_zip`);
 * - source_label defaults to 'custom-api'; unknown top-level fields are reported in
 *   `unknown_fields_ignored` (nested unknown keys of address/consent are ignored silently).
 *
 * - a row naming a suppressed identifier (`suppressed`) is skipped with `suppressed_identity`
 *   (`skipped_suppressed`).
 *
 * @example
 * classifyCustomers([{ email: ' Ann@Example.com ' }]).customers[0]?.email; // 'ann@example.com'
 */
export function classifyCustomers(
  rows: readonly CustomerRowInput[],
  opts: { suppressed?: SuppressionCheck } = {},
): CustomersClassification {
  const normalizePhone = createPhoneNormalizer();
  const customers: NormalizedCustomer[] = [];
  const errors: CustomerRowError[] = [];
  const warnings: CustomerRowWarning[] = [];
  let subscriptions = 0;
  let suppressedRows = 0;
  for (let index = 0; index < rows.length; index++) {
    const row = rows[index]!;
    const external_id = blankToNull(row.external_id);
    const email = normalizeEmail(row.email);
    const phone = row.phone == null ? null : normalizePhone(row.phone);
    if (external_id === null && email === null && phone === null) {
      errors.push({ index, external_id, codes: ['no_usable_identity'] });
      continue;
    }
    if (opts.suppressed?.({ externalId: external_id, email, phone })) {
      errors.push({ index, external_id, codes: ['suppressed_identity'] });
      suppressedRows++;
      continue;
    }
    const warn = (code: CustomerWarningCode, fields: readonly string[]) =>
      warnings.push({ index, external_id, code, fields });
    const unknown = Object.keys(row).filter((k) => !KNOWN_FIELDS.has(k));
    if (unknown.length > 0) warn('unknown_fields_ignored', unknown);
    if (phone === null && !isBlank(row.phone)) warn('invalid_phone_ignored', ['phone']);
    const address = normalizeAddress(row.address);
    if (address === null && hasAnyValue(row.address))
      warn('address_ignored_without_street_city_or_zip', ['address']);
    let startedAt: string | null = null;
    if (!isBlank(row.subscription_started_at)) {
      const parsed = parseTimestamp(row.subscription_started_at!);
      if (parsed === null) warn('unparseable_timestamp_ignored', ['subscription_started_at']);
      else if (parsed.naive) warn('naive_timestamp_read_as_utc', ['subscription_started_at']);
      startedAt = parsed?.iso ?? null;
    }
    const status = row.subscription_status ?? null;
    if (status !== null) subscriptions++;
    customers.push({
      external_id,
      email,
      phone,
      name: blankToNull(row.name),
      address,
      consent: normalizeConsent(row.consent),
      source_label: blankToNull(row.source_label) ?? 'custom-api',
      subscription_status: status,
      subscription_started_at: startedAt,
    });
  }
  return {
    counters: {
      received: rows.length,
      customers_upserted: customers.length,
      skipped_no_identity: errors.length - suppressedRows,
      skipped_suppressed: suppressedRows,
      subscriptions_applied: subscriptions,
    },
    customers,
    errors,
    warnings,
  };
}
