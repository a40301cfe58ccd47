import type { Pool } from '@holdfast/db';

const UNDEFINED_TABLE = '42P01';
const UNDEFINED_SCHEMA = '3F000';

/**
 * What every reader of the projector's read models shares: the schema as a quoted SQL identifier, and
 * queries that answer "nothing yet" (no rows) until the projector's start (or `holdfast migrate`) has
 * created the schema and its tables. The gateway never writes the read models, nor creates them.
 */
export abstract class ReadModelReader {
  /** The read-model schema, quoted: `${this.s}.orders`. */
  protected readonly s: string;

  constructor(
    protected readonly pool: Pool,
    protected readonly schema: string,
  ) {
    this.s = `"${schema.replace(/"/g, '""')}"`;
  }

  /** The rows of a read-model query; none while the schema or the table does not exist yet. */
  protected async rows<T extends object>(text: string, values: unknown[]): Promise<T[]> {
    try {
      return (await this.pool.query<T>(text, values)).rows;
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === UNDEFINED_TABLE || code === UNDEFINED_SCHEMA) return [];
      throw err;
    }
  }
}
