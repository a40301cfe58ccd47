import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { extname } from 'node:path';
import { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { parse } from 'csv-parse';
import { convertCsvRecord, rowId, type BackfillKind } from './convert.js';

/** One data row of the file: its ordinal (1-based, header excluded), its line, and the row or its error. */
export interface SourceRow {
  readonly row: number;
  readonly line: number;
  readonly id: string | null;
  readonly value?: Record<string, unknown>;
  readonly codes?: readonly string[];
}

export type SourceFormat = 'csv' | 'ndjson';

/** The rows of a file read as a stream: constant memory whatever the file's size. */
export interface Source {
  readonly format: SourceFormat;
  /** Size in bytes when known (a file), for percentages and ETA; null for stdin. */
  readonly size: number | null;
  bytesRead(): number;
  rows(): AsyncGenerator<SourceRow>;
  /** Stops reading (after an early stop), releasing the file. */
  close(): void;
}

/** The file cannot be read as CSV or NDJSON at some line: the user fixes the file (exit 2). */
export class SourceError extends Error {
  override readonly name = 'SourceError';
}

const BY_EXTENSION: Readonly<Record<string, SourceFormat>> = {
  '.csv': 'csv',
  '.ndjson': 'ndjson',
  '.jsonl': 'ndjson',
  '.json': 'ndjson',
};

async function* ndjsonRows(chunks: AsyncIterable<Buffer>, kind: BackfillKind): AsyncGenerator<SourceRow> {
  const decoder = new StringDecoder('utf8');
  let rest = '';
  let line = 0;
  let row = 0;
  function* lines(text: string, final: boolean): Generator<SourceRow> {
    const parts = text.split('\n');
    rest = final ? '' : parts.pop()!;
    for (const raw of parts) {
      line += 1;
      const textLine = (line === 1 ? raw.replace(/^\uFEFF/, '') : raw).trim();
      if (!textLine) continue;
      row += 1;
      let value: unknown;
      try {
        value = JSON.parse(textLine);
      } catch {
        yield { row, line, id: null, codes: ['invalid_json'] };
        continue;
      }
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        yield { row, line, id: null, codes: ['not_a_json_object'] };
        continue;
      }
      yield { row, line, id: rowId(kind, value), value: value as Record<string, unknown> };
    }
  }
  for await (const chunk of chunks) yield* lines(rest + decoder.write(chunk), false);
  yield* lines(rest + decoder.end(), true);
}

async function* csvRows(chunks: AsyncIterable<Buffer>, kind: BackfillKind): AsyncGenerator<SourceRow> {
  const parser = Readable.from(chunks).pipe(
    parse({
      columns: (header: string[]) => header.map((h) => h.trim()),
      bom: true,
      skip_empty_lines: true,
      info: true,
      // A runaway quote must not swallow a 5 GB file into one record.
      max_record_size: 32 * 1024 * 1024,
    }),
  );
  let row = 0;
  try {
    for await (const rec of parser as AsyncIterable<{
      record: Record<string, string>;
      info: { lines: number };
    }>) {
      row += 1;
      const c = convertCsvRecord(rec.record);
      const id = rowId(kind, rec.record);
      yield c.ok
        ? { row, line: rec.info.lines, id, value: c.value }
        : { row, line: rec.info.lines, id, codes: c.codes };
    }
  } catch (err) {
    const e = err as Error & { lines?: number };
    throw new SourceError(`CSV ${e.lines ? `line ${e.lines}` : ''}: ${e.message}`);
  }
}

/**
 * Opens a file (or `-` for stdin) for streaming. The format comes from the extension (.csv; .ndjson,
 * .jsonl, .json), else from the first byte: `{` is NDJSON, anything else CSV with a header row.
 */
export async function openSource(
  path: string,
  kind: BackfillKind,
  stdin: Readable = process.stdin,
): Promise<Source> {
  let size: number | null = null;
  if (path !== '-') {
    try {
      size = (await stat(path)).size;
    } catch (err) {
      throw new SourceError(`cannot read ${path}: ${(err as Error).message}`);
    }
  }
  const input: Readable = path === '-' ? stdin : createReadStream(path, { highWaterMark: 256 * 1024 });
  let bytes = 0;
  const iterator = (input as AsyncIterable<Buffer | string>)[Symbol.asyncIterator]();
  const first = await iterator.next();
  const firstChunk = first.done ? Buffer.alloc(0) : Buffer.from(first.value);
  const sniffed = /^(\uFEFF)?\s*\{/.test(firstChunk.subarray(0, 4096).toString('utf8')) ? 'ndjson' : 'csv';
  const format = BY_EXTENSION[extname(path).toLowerCase()] ?? sniffed;
  async function* chunks(): AsyncGenerator<Buffer> {
    bytes += firstChunk.length;
    if (firstChunk.length) yield firstChunk;
    if (first.done) return;
    for (let n = await iterator.next(); !n.done; n = await iterator.next()) {
      const b = Buffer.from(n.value);
      bytes += b.length;
      yield b;
    }
  }
  return {
    format,
    size,
    bytesRead: () => bytes,
    rows: () => (format === 'csv' ? csvRows(chunks(), kind) : ndjsonRows(chunks(), kind)),
    close: () => {
      if (input !== stdin) input.destroy();
    },
  };
}
