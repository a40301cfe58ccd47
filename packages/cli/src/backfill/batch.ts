import type { BackfillKind } from './convert.js';
import type { SourceRow } from './source.js';

/** The spec's limits per request: 5,000 rows and 32 MiB of body. */
export const MAX_ROWS = 5000;
export const MAX_BYTES = 32 * 1024 * 1024;

/** A row ready to send: its JSON, and where it came from for reports. */
export interface PendingRow {
  readonly row: number;
  readonly line: number;
  readonly id: string | null;
  readonly json: string;
  readonly bytes: number;
}

/**
 * A request's worth of rows, covering the row numbers `from..to` (inclusive). Rows of the range that
 * are not in `rows` were reported locally; when the batch is acknowledged the whole range is done.
 */
export interface Batch {
  readonly from: number;
  readonly to: number;
  readonly rows: readonly PendingRow[];
}

/** The serialized request body of a batch. */
export function batchBody(kind: BackfillKind, rows: readonly PendingRow[]): Buffer {
  return Buffer.from(`{"${kind}":[${rows.map((r) => r.json).join(',')}]}`, 'utf8');
}

/** The body size of a batch without building it. */
export function batchBytes(kind: BackfillKind, rows: readonly PendingRow[]): number {
  return kind.length + 7 + rows.reduce((n, r) => n + r.bytes, 0) + Math.max(0, rows.length - 1);
}

/** Halves a batch by count (after a JSON 413: too many rows). */
export function splitByRows(b: Batch): [Batch, Batch] {
  return cut(b, Math.ceil(b.rows.length / 2));
}

/** Halves a batch by bytes (after a plain-text 413: body too large). */
export function splitByBytes(b: Batch): [Batch, Batch] {
  const half = b.rows.reduce((n, r) => n + r.bytes, 0) / 2;
  let acc = 0;
  let i = 0;
  while (i < b.rows.length - 1 && acc + b.rows[i]!.bytes <= half) acc += b.rows[i++]!.bytes;
  return cut(b, Math.max(1, i));
}

function cut(b: Batch, at: number): [Batch, Batch] {
  const left = b.rows.slice(0, at);
  const right = b.rows.slice(at);
  const boundary = left[left.length - 1]!.row;
  return [
    { from: b.from, to: boundary, rows: left },
    { from: boundary + 1, to: b.to, rows: right },
  ];
}

export interface BatcherOptions {
  readonly kind: BackfillKind;
  readonly maxRows: number;
  readonly maxBytes: number;
  /** Row numbers done by an earlier run: skipped, and never inside a batch's range. */
  readonly isCompleted: (row: number) => boolean;
  /** A row that cannot be sent (conversion error, or larger than a whole request). */
  readonly onRowError: (row: SourceRow, codes: readonly string[]) => void;
  readonly onSkipped: (row: SourceRow) => void;
}

/**
 * Pages rows into batches of at most `maxRows` rows and `maxBytes` of body, pulling rows only as fast
 * as batches are taken (so at most one partial batch is held). Ranges never span a completed row.
 */
export async function* batches(rows: AsyncIterable<SourceRow>, o: BatcherOptions): AsyncGenerator<Batch> {
  let pending: PendingRow[] = [];
  let bytes = batchBytes(o.kind, []);
  let from: number | null = null;
  let last = 0;
  const flush = (to: number): Batch => {
    const b: Batch = { from: from!, to, rows: pending };
    pending = [];
    bytes = batchBytes(o.kind, []);
    from = null;
    return b;
  };
  for await (const r of rows) {
    if (o.isCompleted(r.row)) {
      if (from !== null) yield flush(last);
      o.onSkipped(r);
      continue;
    }
    if (r.codes || !r.value) {
      from ??= r.row;
      last = r.row;
      o.onRowError(r, r.codes ?? ['invalid_row']);
      continue;
    }
    const json = JSON.stringify(r.value);
    const size = Buffer.byteLength(json, 'utf8');
    if (size + batchBytes(o.kind, []) > o.maxBytes) {
      from ??= r.row;
      last = r.row;
      o.onRowError(r, ['row_too_large']);
      continue;
    }
    if (pending.length && (pending.length >= o.maxRows || bytes + size + 1 > o.maxBytes)) yield flush(last);
    from ??= r.row;
    last = r.row;
    pending.push({ row: r.row, line: r.line, id: r.id, json, bytes: size });
    bytes += size + (pending.length > 1 ? 1 : 0);
  }
  if (from !== null) yield flush(last);
}
