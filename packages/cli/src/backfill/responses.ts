import type { Batch, PendingRow } from './batch.js';
import type { BackfillKind } from './convert.js';

/** One line of the per-row error report (NDJSON): where the row is and why it was not accepted. */
export interface RowReport {
  readonly line: number;
  readonly row: number;
  readonly id: string | null;
  readonly codes: readonly string[];
}

type Json = Record<string, unknown>;

const num = (body: Json, key: string): number | undefined =>
  typeof body[key] === 'number' ? body[key] : undefined;

/** Parses a JSON answer, or null when the body is not a JSON object. */
export function parseJson(text: string): Json | null {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : null;
  } catch {
    return null;
  }
}

/**
 * Accepted and dropped rows of a 200, for orders and customers, real call or dry run (the spec names
 * the counters differently per endpoint; a missing counter falls back to received minus dropped).
 */
export function countsOf(body: Json, sent: number): { accepted: number; dropped: number } {
  const dropped =
    num(body, 'dropped_invalid') ?? num(body, 'would_drop') ?? num(body, 'skipped_no_identity') ?? 0;
  const accepted =
    num(body, 'accepted') ?? num(body, 'would_accept') ?? (num(body, 'received') ?? sent) - dropped;
  return { accepted, dropped };
}

/** The per-row errors of a dry-run answer (`errors: [{index, order_id, codes}]`) mapped to file lines. */
export function dryRunErrors(body: Json, b: Batch): RowReport[] {
  const errors = Array.isArray(body.errors) ? (body.errors as Json[]) : [];
  return errors.flatMap((e) => {
    const r = typeof e.index === 'number' ? b.rows[e.index] : undefined;
    if (!r) return [];
    const codes = Array.isArray(e.codes)
      ? e.codes.map(String)
      : typeof e.code === 'string'
        ? [e.code]
        : ['error'];
    return [{ line: r.line, row: r.row, id: r.id, codes }];
  });
}

/** Counts of the warning codes of a dry-run answer. */
export function warningCodes(body: Json): string[] {
  const warnings = Array.isArray(body.warnings) ? (body.warnings as Json[]) : [];
  return warnings.map((w) => (typeof w.code === 'string' ? w.code : 'warning'));
}

/**
 * The rows a 422 names (`loc: [body, <kind>, <index>, <field>]`) with a code `<type>:<field>`; null when
 * some entry does not point at a row (then the whole request is at fault, not rows).
 */
export function rowsOf422(body: Json | null, b: Batch, kind: BackfillKind): RowReport[] | null {
  const detail = body && Array.isArray(body.detail) ? (body.detail as Json[]) : null;
  if (!detail?.length) return null;
  const byRow = new Map<PendingRow, string[]>();
  for (const d of detail) {
    const loc = Array.isArray(d.loc) ? d.loc : [];
    const r = loc[0] === 'body' && loc[1] === kind && typeof loc[2] === 'number' ? b.rows[loc[2]] : undefined;
    if (!r) return null;
    const field = loc.slice(3).join('.') || 'row';
    const code = `${typeof d.type === 'string' ? d.type : 'invalid'}:${field}`;
    byRow.set(r, [...(byRow.get(r) ?? []), code]);
  }
  return [...byRow].map(([r, codes]) => ({ line: r.line, row: r.row, id: r.id, codes }));
}

/** A short text for a refused request: status and the `detail` the endpoint gave, or its text. */
export function describeRefusal(status: number, text: string): string {
  const body = parseJson(text);
  const detail = body?.detail;
  const shown =
    typeof detail === 'string' ? detail : detail ? JSON.stringify(detail).slice(0, 300) : text.slice(0, 300);
  const hint: Record<number, string> = {
    400: 'the endpoint refused the batch as malformed',
    401: 'the key was refused: check --key (an ingest key tk_live_ or tk_test_, not revoked or expired)',
    403: 'the key may not write here',
    404: 'no such endpoint: check --url (the gateway base address, e.g. http://127.0.0.1:8080)',
    422: 'rows do not match the schema: run with --dry-run for the full per-row report',
  };
  return `${status}${shown ? ` ${shown}` : ''}${hint[status] ? ` (${hint[status]})` : ''}`;
}
