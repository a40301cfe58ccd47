import { createWriteStream, type WriteStream } from 'node:fs';
import { finished } from 'node:stream/promises';
import type { RowReport } from './responses.js';

/**
 * The per-row error report: one JSON object per line, `{"line", "row", "<order_id|external_id>", "codes"}`.
 * It carries the client's own ids only, never names, emails or phones. Appended to when a run resumes.
 */
export class ErrorReport {
  private readonly stream: WriteStream;
  count = 0;

  constructor(
    readonly path: string,
    append: boolean,
  ) {
    this.stream = createWriteStream(path, { flags: append ? 'a' : 'w' });
  }

  write(r: RowReport, idField: string): void {
    this.count += 1;
    this.stream.write(`${JSON.stringify({ line: r.line, row: r.row, [idField]: r.id, codes: r.codes })}\n`);
  }

  async close(): Promise<void> {
    this.stream.end();
    await finished(this.stream);
  }
}
