import { qualified, type ProjectionTx } from '../../projection.js';
import { columnsOf, textArrayLiteral } from '../sql-arrays.js';
import type { CustomerSubjectWrite } from './commerce-chunk.js';

/** A row of read_models.customer_events. */
export interface CustomerEventRow {
  readonly accountId: string;
  readonly dedupKey: string;
  readonly eventId: string;
  readonly customerId: string;
  readonly linkMethod: 'provider_id' | 'email' | 'phone' | 'created';
  readonly isNew: boolean;
  readonly eventType: string;
  readonly receivedAt: string;
  /**
   * customApiContentKey of the event: a later duplicate that differs from it is warned about. Null
   * when its personal fields are shredded (the content is no longer known).
   */
  readonly contentKey: string | null;
}

/** A row of read_models.zero_party_submissions. */
export interface ZeroPartyRow {
  readonly accountId: string;
  readonly dedupKey: string;
  readonly eventId: string;
  readonly customerId: string;
  readonly email: string | null;
  readonly externalCustomerId: string | null;
  readonly interests: readonly string[];
  readonly attributesJson: string | null;
  readonly sourceLabel: string | null;
  readonly quizVersion: string | null;
  readonly completedAt: string | null;
  readonly receivedAt: string;
}

/** The key and links both webhook tables start with: their first four columns. */
interface WebhookRow {
  readonly accountId: string;
  readonly dedupKey: string;
  readonly eventId: string;
  readonly customerId: string;
}

// Duplicates were filtered in memory (against stored keys and earlier records of the chunk);
// `do nothing` only guards that rule, it never decides.
async function insertNewRows<R extends WebhookRow>(
  tx: ProjectionTx,
  table: string,
  /** The columns after customer_id, and the select over unnest($1 … $n) giving all of them. */
  columnsAndSelect: string,
  rows: readonly R[],
  /** The values after customer_id. */
  restOf: (r: R) => unknown[],
): Promise<void> {
  if (!rows.length) return;
  await tx.client.query(
    tx.named(
      `write-webhook-rows.insert-${table}`,
      (
        s,
      ) => `insert into ${qualified(s, table)} (account_id, dedup_key, event_id, customer_id, ${columnsAndSelect}
     on conflict (account_id, dedup_key) do nothing`,
    ),
    columnsOf(rows, (r) => [r.accountId, r.dedupKey, r.eventId, r.customerId, ...restOf(r)]),
  );
}

export function insertCustomerEvents(tx: ProjectionTx, rows: readonly CustomerEventRow[]): Promise<void> {
  return insertNewRows(
    tx,
    'customer_events',
    `link_method, is_new, event_type, received_at, content_key)
     select * from unnest($1::uuid[], $2::text[], $3::text[], $4::uuid[], $5::text[], $6::boolean[],
       $7::text[], $8::timestamptz[], $9::text[])`,
    rows,
    (r) => [r.linkMethod, r.isNew, r.eventType, r.receivedAt, r.contentKey],
  );
}

export function insertZeroPartySubmissions(tx: ProjectionTx, rows: readonly ZeroPartyRow[]): Promise<void> {
  return insertNewRows(
    tx,
    'zero_party_submissions',
    `email, external_customer_id, interests, attributes, source_label, quiz_version, completed_at,
       received_at)
     select a, dk, eid, cid, em, ext, coalesce(i::text[], '{}'), attrs::jsonb, sl, qv, ca, ra
     from unnest($1::uuid[], $2::text[], $3::text[], $4::uuid[], $5::text[], $6::text[], $7::text[],
       $8::text[], $9::text[], $10::text[], $11::timestamptz[], $12::timestamptz[])
       as p(a, dk, eid, cid, em, ext, i, attrs, sl, qv, ca, ra)`,
    rows,
    (r) => [
      r.email,
      r.externalCustomerId,
      textArrayLiteral(r.interests),
      r.attributesJson,
      r.sourceLabel,
      r.quizVersion,
      r.completedAt,
      r.receivedAt,
    ],
  );
}

/**
 * Records which data subjects' keys encrypted the chunk's records of each customer
 * (read_models.customer_subjects): an erasure destroys them all. Insert-only, idempotent.
 */
export async function insertCustomerSubjects(
  tx: ProjectionTx,
  rows: readonly CustomerSubjectWrite[],
): Promise<void> {
  if (!rows.length) return;
  await tx.client.query(
    tx.named(
      'write-webhook-rows.customer-subjects',
      (s) => `insert into ${qualified(s, 'customer_subjects')} (account_id, customer_id, subject_id)
        select * from unnest($1::uuid[], $2::uuid[], $3::text[]) on conflict do nothing`,
    ),
    [rows.map((r) => r.accountId), rows.map((r) => r.customerId), rows.map((r) => r.subjectId)],
  );
}
