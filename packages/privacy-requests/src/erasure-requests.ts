import { randomUUID } from 'node:crypto';
import { rawQuery, withTransaction, type Pool } from '@holdfast/postgres';
import type { PersonRequest } from '@holdfast/domain';
import type { SubjectKeyStore } from '@holdfast/privacy';
import { indexPerson, type PersonIndexes } from './person-indexes.js';
import { ERASURE_REUSE_MS, REQUEST_ID, type RequestedBy, type RequestStatus } from './request-status.js';

/** What the worker counted when an erasure ran. */
export interface ErasureCounters {
  readonly customers: number;
  readonly orders: number;
  readonly subjects: number;
  readonly keys_destroyed: number;
  readonly rows_blanked: number;
  readonly suppressions: number;
}

/** An erasure as GET /v1/erasures/{id} and `holdfast erasures show` read it. */
export interface ErasureRecord {
  readonly id: string;
  readonly accountId: string;
  readonly status: RequestStatus;
  readonly suppress: boolean;
  readonly requestedBy: RequestedBy;
  readonly requestedAt: Date;
  readonly startedAt: Date | null;
  readonly finishedAt: Date | null;
  readonly counters: ErasureCounters | null;
  readonly reason: string | null;
}

/** Queuing an erasure: who asks, about whom. */
export interface NewErasure {
  readonly accountId: string;
  readonly request: PersonRequest;
  readonly requestedBy: RequestedBy;
  /** The ingest key that asked (API). */
  readonly keyId?: string | null;
  /** The client's Idempotency-Key header: the same key answers the request first made with it. */
  readonly idempotencyKey?: string | null;
  readonly now: Date;
}

/** The erasure a request answers with, and whether this call created it. */
export interface QueuedErasure {
  readonly erasure: ErasureRecord;
  readonly created: boolean;
}

interface ErasureRow {
  id: string;
  account_id: string;
  status: RequestStatus;
  suppress: boolean;
  requested_by: RequestedBy;
  requested_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  counters: ErasureCounters | null;
  reason: string | null;
}

const COLUMNS =
  'id, account_id, status, suppress, requested_by, requested_at, started_at, finished_at, counters, reason';

const record = (r: ErasureRow): ErasureRecord => ({
  id: r.id,
  accountId: r.account_id,
  status: r.status,
  suppress: r.suppress,
  requestedBy: r.requested_by,
  requestedAt: r.requested_at,
  startedAt: r.started_at,
  finishedAt: r.finished_at,
  counters: r.counters,
  reason: r.reason,
});

/**
 * Queues an erasure, the one way (POST /v1/erasures and `holdfast erase`): indexes the (already
 * validated and normalised) identifiers with the account's index key, then, under a per-account lock,
 * answers an existing request instead of queuing a second one when
 * - the Idempotency-Key was used before by this account (whatever that request's state), or
 * - the same identifiers (same indexes) and the same `suppress` are queued, running, or finished
 *   `done` less than `ERASURE_REUSE_MS` ago;
 * else inserts a `queued` row holding the indexes only. The identifiers themselves are never stored.
 *
 * @example
 * const { erasure, created } = await queueErasure(pool, keys, { accountId, request, requestedBy: 'cli', now: new Date() });
 */
export async function queueErasure(
  pool: Pool,
  keys: Pick<SubjectKeyStore, 'indexKey'>,
  e: NewErasure,
): Promise<QueuedErasure> {
  const idx = indexPerson(await keys.indexKey(e.accountId), e.request.identifiers);
  return withTransaction(pool, async (c) => {
    await rawQuery(
      c,
      'erasure-requests.lock-account',
      'select pg_advisory_xact_lock(hashtextextended($1, 0))',
      [`holdfast:erasure:${e.accountId}`],
    );
    const { rows: same } = await rawQuery<ErasureRow>(
      c,
      'erasure-requests.find-same',
      `select ${COLUMNS} from privacy.erasure_requests
        where account_id = $1
          and (($2::text is not null and idempotency_key = $2)
            or ($2::text is null
                and external_id_index is not distinct from $3 and email_index is not distinct from $4
                and phone_index is not distinct from $5 and suppress = $6
                and anonymous_id_index is not distinct from $8
                and (status in ('queued', 'running') or (status = 'done' and finished_at > $7))))
        order by requested_at desc limit 1`,
      [
        e.accountId,
        e.idempotencyKey ?? null,
        idx.externalId,
        idx.email,
        idx.phone,
        e.request.suppress,
        new Date(e.now.getTime() - ERASURE_REUSE_MS),
        idx.anonymousId ?? null,
      ],
    );
    if (same[0]) return { erasure: record(same[0]), created: false };
    const { rows } = await rawQuery<ErasureRow>(
      c,
      'erasure-requests.insert',
      `insert into privacy.erasure_requests
         (id, account_id, external_id_index, email_index, phone_index, suppress, idempotency_key,
          requested_by, key_id, status, requested_at, anonymous_id_index)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'queued', $10, $11)
       returning ${COLUMNS}`,
      [
        randomUUID(),
        e.accountId,
        idx.externalId,
        idx.email,
        idx.phone,
        e.request.suppress,
        e.idempotencyKey ?? null,
        e.requestedBy,
        e.keyId ?? null,
        e.now,
        idx.anonymousId ?? null,
      ],
    );
    return { erasure: record(rows[0]!), created: true };
  });
}

/** The erasure if it exists AND belongs to the account; a non-UUID id is simply not found. */
export async function findErasure(pool: Pool, accountId: string, id: string): Promise<ErasureRecord | null> {
  if (!REQUEST_ID.test(id)) return null;
  const { rows } = await rawQuery<ErasureRow>(
    pool,
    'erasure-requests.find',
    `select ${COLUMNS} from privacy.erasure_requests where id = $1 and account_id = $2`,
    [id, accountId],
  );
  return rows[0] ? record(rows[0]) : null;
}

/** The account's erasures, latest first. */
export async function listErasures(pool: Pool, accountId: string, limit = 50): Promise<ErasureRecord[]> {
  const { rows } = await rawQuery<ErasureRow>(
    pool,
    'erasure-requests.list',
    `select ${COLUMNS} from privacy.erasure_requests where account_id = $1 order by requested_at desc limit $2`,
    [accountId, limit],
  );
  return rows.map(record);
}

/**
 * The public view of an erasure (GET /v1/erasures/{id}, `--json` of the CLI): counters only when
 * done, reason only when failed.
 */
export function erasureView(e: ErasureRecord) {
  return {
    erasure_id: e.id,
    status: e.status,
    suppress: e.suppress,
    requested_at: e.requestedAt.toISOString(),
    started_at: e.startedAt?.toISOString() ?? null,
    finished_at: e.finishedAt?.toISOString() ?? null,
    counters: e.status === 'done' ? e.counters : null,
    reason: e.status === 'failed' ? e.reason : null,
  };
}

/** The indexes a stored erasure names its person by (for the worker). */
export type ErasureTarget = PersonIndexes & {
  readonly id: string;
  readonly accountId: string;
  readonly suppress: boolean;
};
