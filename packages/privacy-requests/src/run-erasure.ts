import { rawQuery, withTransaction, type Pool } from '@holdfast/postgres';
import { blindIndex, type SubjectKeyStore } from '@holdfast/privacy';
import { blankPerson } from './blank-person.js';
import type { ErasureCounters } from './erasure-requests.js';
import { erasureTargets, type CandidateCustomer } from './erasure-targets.js';
import { identifierSubjects, type PersonIndexes } from './person-indexes.js';
import { namedBrowsers, stitchedBrowserSubjects } from './pixel-subjects.js';

/** A claimed erasure, as the worker runs it. */
export interface ClaimedErasure extends PersonIndexes {
  readonly id: string;
  readonly accountId: string;
  readonly suppress: boolean;
}

/** What running an erasure needs. */
export interface ErasureDeps {
  readonly pool: Pool;
  /** The live read-model schema. */
  readonly schema: string;
  readonly keys: Pick<SubjectKeyStore, 'indexKey' | 'destroy'>;
}

const q = (s: string) => `"${s.replace(/"/g, '""')}"`;

interface CandidateRow {
  customer_id: string;
  external_id: string | null;
  email_index: string | null;
  phone_index: string | null;
}

/**
 * The person's customers in the read models: candidates by email or phone index and by the subject of
 * the external id (`x:<index>` in customer_subjects: the customer every encrypted record naming it was
 * folded into), all indexed lookups; then `erasureTargets` applies the identity rules. External ids are
 * stored in clear and the request holds only their index, so a candidate's external id is indexed here
 * with the account's key. Only when no candidate holds the external id (a customer known from records
 * stored in clear before encryption, or from records without personal fields) are all the account's
 * external ids indexed (docs/privacy-requests.md, "Measured").
 */
export async function findPersonCustomers(
  deps: { readonly pool: Pool; readonly schema: string; readonly keys: Pick<SubjectKeyStore, 'indexKey'> },
  e: PersonIndexes & { readonly accountId: string },
): Promise<string[]> {
  const s = q(deps.schema);
  const indexKey = await deps.keys.indexKey(e.accountId);
  const candidate = (r: CandidateRow): CandidateCustomer => ({
    customerId: r.customer_id,
    externalIdIndex: r.external_id === null ? null : blindIndex(indexKey, 'external_id', r.external_id),
    emailIndex: r.email_index,
    phoneIndex: r.phone_index,
  });
  const { rows } = await rawQuery<CandidateRow>(
    deps.pool,
    'erasure.candidates',
    `select customer_id, external_id, email_index, phone_index from ${s}.customers c
      where c.account_id = $1
        and (($2::text is not null and c.email_index = $2) or ($3::text is not null and c.phone_index = $3)
             or c.customer_id in (select cs.customer_id from ${s}.customer_subjects cs
                                   where cs.account_id = $1 and cs.subject_id = $4))`,
    [e.accountId, e.email, e.phone, e.externalId === null ? null : `x:${e.externalId}`],
  );
  const candidates = rows.map(candidate);
  if (e.externalId !== null && !candidates.some((c) => c.externalIdIndex === e.externalId)) {
    const { rows: all } = await rawQuery<CandidateRow>(
      deps.pool,
      'erasure.candidates-by-external-id',
      `select customer_id, external_id, email_index, phone_index from ${s}.customers
        where account_id = $1 and external_id is not null`,
      [e.accountId],
    );
    for (const r of all) {
      const c = candidate(r);
      if (c.externalIdIndex === e.externalId) candidates.push(c);
    }
  }
  return erasureTargets(candidates, e);
}

/**
 * Runs one erasure to its end (the worker marks it running before and records failures):
 * 1. the person's customers (`findPersonCustomers`) and every subject whose key encrypted their
 *    records: the customers' `customer_subjects` rows plus the identifiers' own subjects, plus the
 *    browsers whose pixel sessions were stitched to them (`stitchedBrowserSubjects`, `a:`);
 * 2. with `suppress`, the identifiers' indexes (a named browser's too) go to privacy.suppressions
 *    BEFORE the keys are destroyed: the destruction bumps the key generation, which tells gateways to reload them;
 * 3. `keys.destroy` — from here on nothing can decrypt the person's records, in the log or anywhere;
 * 4. in ONE transaction: the read models blanked (`blankPerson`) and the request `done` with its
 *    counters. A crash between 3 and 4 is safe: the retry finds the same customers (blind indexes
 *    stay), destroys nothing more and blanks.
 */
export async function runErasure(
  deps: ErasureDeps,
  e: ClaimedErasure,
  now: () => Date,
): Promise<ErasureCounters> {
  const customerIds = await findPersonCustomers(deps, e);
  const { rows: subjectRows } = await rawQuery<{ subject_id: string }>(
    deps.pool,
    'erasure.subjects',
    `select distinct subject_id from ${q(deps.schema)}.customer_subjects
      where account_id = $1 and customer_id = any($2::uuid[])`,
    [e.accountId, customerIds],
  );
  const browsers = await stitchedBrowserSubjects(
    deps.pool,
    deps.schema,
    e.accountId,
    customerIds,
    await deps.keys.indexKey(e.accountId),
  );
  // A browser named by the request (`anonymous_id`), stitched to anyone or not: its `a:` subject is
  // among identifierSubjects; its events are found by their anonymous ids.
  const named = e.anonymousId
    ? await namedBrowsers(
        deps.pool,
        deps.schema,
        e.accountId,
        e.anonymousId,
        await deps.keys.indexKey(e.accountId),
      )
    : [];
  const subjects = [
    ...new Set([...subjectRows.map((r) => r.subject_id), ...identifierSubjects(e), ...browsers]),
  ].sort();
  let suppressions = 0;
  if (e.suppress) {
    // A named browser is suppressed with the person's identifiers: the pixel collector drops its events.
    const kinds: [string, string | null][] = [
      ['external_id', e.externalId],
      ['email', e.email],
      ['phone', e.phone],
      ['anonymous_id', e.anonymousId ?? null],
    ];
    const named = kinds.filter((k): k is [string, string] => k[1] !== null);
    const { rowCount } = await rawQuery(
      deps.pool,
      'erasure.suppress',
      `insert into privacy.suppressions (account_id, kind, identifier_index, erasure_id)
       select $1, kind, idx, $4 from unnest($2::text[], $3::text[]) as t(kind, idx)
       on conflict do nothing`,
      [e.accountId, named.map((k) => k[0]), named.map((k) => k[1]), e.id],
    );
    suppressions = rowCount ?? 0;
  }
  const keysDestroyed = await deps.keys.destroy(e.accountId, subjects, e.id);
  return withTransaction(deps.pool, async (c) => {
    const blanked = await blankPerson(c, deps.schema, e.accountId, customerIds, subjects, named);
    // The person's exports must not outlive their erasure.
    await rawQuery(
      c,
      'erasure.drop-exports',
      `delete from privacy.person_exports where account_id = $1
         and ((external_id_index is not null and external_id_index = $2)
           or (email_index is not null and email_index = $3) or (phone_index is not null and phone_index = $4))`,
      [e.accountId, e.externalId, e.email, e.phone],
    );
    const counters: ErasureCounters = {
      customers: customerIds.length,
      orders: blanked.orders,
      subjects: subjects.length,
      keys_destroyed: keysDestroyed,
      rows_blanked:
        blanked.customers +
        blanked.customerEvents +
        blanked.orders +
        blanked.zeroParty +
        blanked.pixelEvents +
        blanked.deadLetters,
      suppressions,
    };
    await rawQuery(
      c,
      'erasure.done',
      `update privacy.erasure_requests set status = 'done', counters = $2, reason = null, finished_at = $3
        where id = $1`,
      [e.id, JSON.stringify(counters), now()],
    );
    return counters;
  });
}
