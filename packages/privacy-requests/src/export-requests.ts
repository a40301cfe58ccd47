import { randomUUID } from 'node:crypto';
import { rawQuery, withTransaction, type Pool } from '@holdfast/postgres';
import type { SecretsKeyring } from '@holdfast/secrets';
import type { PersonRequest } from '@holdfast/domain';
import type { SubjectKeyStore } from '@holdfast/privacy';
import { indexPerson } from './person-indexes.js';
import { EXPORT_TTL_MS, REQUEST_ID, type RequestedBy, type RequestStatus } from './request-status.js';

/** An export as GET /v1/exports/{id} and `holdfast export-person` read it (without its document). */
export interface ExportRecord {
  readonly id: string;
  readonly accountId: string;
  readonly status: RequestStatus;
  readonly requestedAt: Date;
  readonly finishedAt: Date | null;
  readonly expiresAt: Date;
  readonly reason: string | null;
}

/** Queuing an export: who asks, about whom. */
export interface NewExport {
  readonly accountId: string;
  readonly request: PersonRequest;
  readonly requestedBy: RequestedBy;
  readonly keyId?: string | null;
  readonly idempotencyKey?: string | null;
  readonly now: Date;
}

interface ExportRow {
  id: string;
  account_id: string;
  status: RequestStatus;
  requested_at: Date;
  finished_at: Date | null;
  expires_at: Date;
  reason: string | null;
}

const COLUMNS = 'id, account_id, status, requested_at, finished_at, expires_at, reason';

const record = (r: ExportRow): ExportRecord => ({
  id: r.id,
  accountId: r.account_id,
  status: r.status,
  requestedAt: r.requested_at,
  finishedAt: r.finished_at,
  expiresAt: r.expires_at,
  reason: r.reason,
});

/** The sealing context of an export's document: its row, so a document moved to another row fails. */
export const exportDocumentContext = (accountId: string, exportId: string) =>
  `holdfast.privacy.export/${accountId}/${exportId}`;

/**
 * Queues an access request's export, the one way (POST /v1/exports and `holdfast export-person`):
 * the identifiers' blind indexes only, `queued`, expiring after `EXPORT_TTL_MS`. An Idempotency-Key
 * used before by the account answers that export; the same person asked again while an export of
 * theirs is queued or running answers that one (a finished export is not reused: the person's data
 * may have changed since).
 */
export async function queueExport(
  pool: Pool,
  keys: Pick<SubjectKeyStore, 'indexKey'>,
  e: NewExport,
): Promise<{ export: ExportRecord; created: boolean }> {
  const idx = indexPerson(await keys.indexKey(e.accountId), e.request.identifiers);
  return withTransaction(pool, async (c) => {
    await rawQuery(
      c,
      'person-exports.lock-account',
      'select pg_advisory_xact_lock(hashtextextended($1, 0))',
      [`holdfast:export:${e.accountId}`],
    );
    const { rows: same } = await rawQuery<ExportRow>(
      c,
      'person-exports.find-same',
      `select ${COLUMNS} from privacy.person_exports
        where account_id = $1
          and (($2::text is not null and idempotency_key = $2)
            or ($2::text is null and status in ('queued', 'running')
                and external_id_index is not distinct from $3 and email_index is not distinct from $4
                and phone_index is not distinct from $5))
        order by requested_at desc limit 1`,
      [e.accountId, e.idempotencyKey ?? null, idx.externalId, idx.email, idx.phone],
    );
    if (same[0]) return { export: record(same[0]), created: false };
    const { rows } = await rawQuery<ExportRow>(
      c,
      'person-exports.insert',
      `insert into privacy.person_exports
         (id, account_id, external_id_index, email_index, phone_index, idempotency_key, requested_by, key_id,
          status, requested_at, expires_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, 'queued', $9, $10)
       returning ${COLUMNS}`,
      [
        randomUUID(),
        e.accountId,
        idx.externalId,
        idx.email,
        idx.phone,
        e.idempotencyKey ?? null,
        e.requestedBy,
        e.keyId ?? null,
        e.now,
        new Date(e.now.getTime() + EXPORT_TTL_MS),
      ],
    );
    return { export: record(rows[0]!), created: true };
  });
}

/** The export if it exists, belongs to the account and has not expired; else null. */
export async function findExport(
  pool: Pool,
  accountId: string,
  id: string,
  now: Date,
): Promise<ExportRecord | null> {
  if (!REQUEST_ID.test(id)) return null;
  const { rows } = await rawQuery<ExportRow>(
    pool,
    'person-exports.find',
    `select ${COLUMNS} from privacy.person_exports where id = $1 and account_id = $2 and expires_at > $3`,
    [id, accountId, now],
  );
  return rows[0] ? record(rows[0]) : null;
}

/**
 * The document of a finished export, opened with the KEK ring (null when the export is unknown,
 * another account's, expired or not done).
 */
export async function openExportDocument(
  pool: Pool,
  keyring: SecretsKeyring,
  accountId: string,
  id: string,
  now: Date,
): Promise<unknown> {
  if (!REQUEST_ID.test(id)) return null;
  const { rows } = await rawQuery<{ key_id: string; wrapped_key: Buffer; ciphertext: Buffer }>(
    pool,
    'person-exports.document',
    `select document_key_id as key_id, document_wrapped_key as wrapped_key, document_ciphertext as ciphertext
       from privacy.person_exports
      where id = $1 and account_id = $2 and expires_at > $3 and status = 'done'`,
    [id, accountId, now],
  );
  const r = rows[0];
  if (!r) return null;
  const text = keyring.open(
    { keyId: r.key_id, wrappedKey: r.wrapped_key, ciphertext: r.ciphertext },
    exportDocumentContext(accountId, id),
  );
  return JSON.parse(text) as unknown;
}

/** The public view of an export (GET /v1/exports/{id}); `download_url` once done. */
export function exportView(e: ExportRecord) {
  return {
    export_id: e.id,
    status: e.status,
    requested_at: e.requestedAt.toISOString(),
    finished_at: e.finishedAt?.toISOString() ?? null,
    expires_at: e.expiresAt.toISOString(),
    reason: e.status === 'failed' ? e.reason : null,
    download_url: e.status === 'done' ? `/v1/exports/${e.id}/download` : null,
  };
}
