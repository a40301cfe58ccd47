import { rawQuery, type Pool } from '@holdfast/postgres';
import type { SecretsKeyring } from '@holdfast/secrets';
import type { SubjectKeyStore } from '@holdfast/privacy';
import { exportDocumentContext } from './export-requests.js';
import { findPersonCustomers } from './run-erasure.js';
import type { PersonIndexes } from './person-indexes.js';

/** A claimed export, as the worker runs it. */
export interface ClaimedExport extends PersonIndexes {
  readonly id: string;
  readonly accountId: string;
}

/** What building an export needs. */
export interface ExportDeps {
  readonly pool: Pool;
  readonly schema: string;
  readonly keys: Pick<SubjectKeyStore, 'indexKey'>;
  /** HOLDFAST_PRIVACY_KEYS: the document is sealed under it at rest. */
  readonly keyring: SecretsKeyring;
}

const q = (s: string) => `"${s.replace(/"/g, '""')}"`;

const OF_CUSTOMERS = 't.customer_id = any($2::uuid[])';

/**
 * Every section of the document: its table, which rows are the person's ($1 the account, $2 their
 * customer ids), and its order. The recompute's tables (analytics.*) may be absent (a database the
 * recompute never migrated): their section is then empty.
 */
const sections = (s: string) =>
  [
    ['profile', `${s}.customers`, OF_CUSTOMERS, 'created_at'],
    ['orders', `${s}.orders`, OF_CUSTOMERS, 'order_date'],
    ['events', `${s}.customer_events`, OF_CUSTOMERS, 'received_at'],
    ['submissions', `${s}.zero_party_submissions`, OF_CUSTOMERS, 'received_at'],
    ['pixel_activity', `${s}.pixel_events_stitched`, OF_CUSTOMERS, 'occurred_at'],
    ['campaign_sends', `${s}.campaign_sends`, OF_CUSTOMERS, 'sent_at'],
    ['scores', 'analytics.customer_scores', OF_CUSTOMERS, 'as_of'],
    ['campaign_decisions', 'analytics.campaign_assignments', OF_CUSTOMERS, 'assigned_at'],
    [
      'attributions',
      'analytics.attributions',
      `t.order_id in (select o.order_id from ${s}.orders o where o.account_id = $1 and o.customer_id = any($2::uuid[]))`,
      'attributed_at',
    ],
  ] as const;

/**
 * The access request's document: everything Holdfast holds about the person, as the read models
 * hold it (decrypted by the projector): profile, orders, custom-api events, zero-party submissions,
 * pixel activity stitched to them, campaign sends, scores, campaign decisions (assignments: treated
 * or holdout, sent or not) and attributions. Rows of other customers never enter: every section is
 * filtered by the person's customer ids (`findPersonCustomers`, the erasure's identity rules).
 */
export async function buildExportDocument(deps: ExportDeps, x: ClaimedExport, generatedAt: Date) {
  const customerIds = await findPersonCustomers(deps, x);
  const out: Record<string, unknown[]> = {};
  for (const [name, table, filter, order] of sections(q(deps.schema))) {
    const { rows: exists } = await rawQuery<{ ok: boolean }>(
      deps.pool,
      'export.table-exists',
      'select to_regclass($1) is not null as ok',
      [table],
    );
    if (!exists[0]?.ok) {
      out[name] = [];
      continue;
    }
    const { rows } = await rawQuery<{ rows: unknown[] }>(
      deps.pool,
      'export.section',
      `select coalesce(jsonb_agg(to_jsonb(t) order by t.${order}), '[]'::jsonb) as rows
         from ${table} t where t.account_id = $1 and ${filter}`,
      [x.accountId, customerIds],
    );
    out[name] = rows[0]?.rows ?? [];
  }
  return {
    export_id: x.id,
    account_id: x.accountId,
    generated_at: generatedAt.toISOString(),
    customer_ids: customerIds,
    ...out,
  };
}

/** Builds the document, seals it under the KEK ring and marks the export done, in one statement. */
export async function runExport(deps: ExportDeps, x: ClaimedExport, now: () => Date): Promise<number> {
  const doc = await buildExportDocument(deps, x, now());
  const sealed = deps.keyring.seal(JSON.stringify(doc), exportDocumentContext(x.accountId, x.id));
  await rawQuery(
    deps.pool,
    'export.done',
    `update privacy.person_exports set status = 'done', reason = null, finished_at = $2,
            document_key_id = $3, document_wrapped_key = $4, document_ciphertext = $5
      where id = $1`,
    [x.id, now(), sealed.keyId, sealed.wrappedKey, sealed.ciphertext],
  );
  return doc.customer_ids.length;
}
