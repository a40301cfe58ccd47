import { finished } from 'node:stream/promises';
import { from as copyFrom } from 'pg-copy-streams';
import { namedSql, type PoolClient } from '@holdfast/postgres';
import { textArrayLiteral } from './sql-arrays.js';

const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };
const SPECIAL = /[\\\t\n\r]/;
const SPECIALS = /[\\\t\n\r]/g;

/** One value in COPY text format: \N for null, backslash escapes, arrays as literals, booleans t/f. */
export function copyField(v: unknown): string {
  if (v === null || v === undefined) return '\\N';
  if (typeof v === 'boolean') return v ? 't' : 'f';
  if (typeof v === 'number') return String(v);
  if (Array.isArray(v)) return copyField(textArrayLiteral(v as string[]));
  if (v instanceof Date) return v.toISOString();
  if (typeof v !== 'string') throw new TypeError(`cannot COPY a ${typeof v}`);
  return SPECIAL.test(v) ? v.replace(SPECIALS, (c) => ESCAPES[c]!) : v;
}

/** One row in COPY text format, with its newline. */
export function copyLine(values: readonly unknown[]): string {
  let line = '';
  for (let i = 0; i < values.length; i++) line += (i ? '\t' : '') + copyField(values[i]);
  return line + '\n';
}

/**
 * Appends rows to `table` with COPY, in the caller's transaction. New rows of a backfill go this way:
 * PostgreSQL inserts them in batches (about twice the speed of INSERT … SELECT), and the server parses
 * one text stream instead of one array parameter per column. A bad value fails the COPY with the same
 * SQLSTATE an INSERT would give (22xxx, 23xxx), so poison isolation works the same.
 *
 * @example
 * await copyRows(client, '"read_models"."orders"', ['account_id', 'order_id'], [[a, 'o-1']]);
 */
export async function copyRows(
  client: PoolClient,
  table: string,
  columns: readonly string[],
  rows: readonly (readonly unknown[])[],
  options: CopyOptions = {},
): Promise<void> {
  if (!rows.length) return;
  let body = '';
  for (const r of rows) body += copyLine(r);
  await copyText(client, table, columns, body, options);
}

export interface CopyOptions {
  /** Runs once the rows are on the socket, while PostgreSQL parses and indexes them. */
  readonly whileCopying?: () => void;
}

/**
 * COPY text built straight into bytes, line by line. Joining thousands of lines into one string and
 * then encoding it costs a flattening pass over every concatenated line plus the encoding pass; here
 * each line is encoded once into a growing buffer (measured 1.6× faster for 5,000-order chunks).
 */
export class CopyBuffer {
  private buf = Buffer.allocUnsafe(1 << 20);
  private length = 0;

  append(line: string): void {
    // A UTF-16 code unit is at most 3 bytes of UTF-8.
    if (this.length + line.length * 3 > this.buf.length) {
      const bigger = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.length + line.length * 3));
      this.buf.copy(bigger, 0, 0, this.length);
      this.buf = bigger;
    }
    this.length += this.buf.write(line, this.length);
  }

  bytes(): Buffer {
    return this.buf.subarray(0, this.length);
  }
}

/** COPY of rows already in COPY text format (`copyLine`, or a writer specialised for one table). */
export async function copyText(
  client: PoolClient,
  table: string,
  columns: readonly string[],
  body: string | Buffer,
  options: CopyOptions = {},
): Promise<void> {
  if (!body.length) return;
  const sink = client.query(
    copyFrom(namedSql('copy-rows.copy', `copy ${table} (${columns.join(', ')}) from stdin`)),
  );
  const done = finished(sink);
  await Promise.race([new Promise<void>((resolve) => sink.write(body, () => resolve())), done]);
  try {
    options.whileCopying?.();
  } finally {
    sink.end();
  }
  await done;
}
