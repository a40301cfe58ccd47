import { qualified, type ProjectionTx } from '../../projection.js';

/**
 * Keeps the planner's statistics fresh while a backfill (or a rebuild into fresh tables) grows the
 * customers and orders tables faster than autovacuum notices. With stale statistics the identity
 * lookups chose a scan of every customer of the account per key (2 s per chunk at 10k customers);
 * after ANALYZE they use the email/phone indexes (9 ms). Rows written since the last ANALYZE must
 * reach max(5,000, half of all rows written before it), so a backfill analyses a logarithmic number
 * of times. Statistics never change what is folded: replay stays deterministic.
 */
export class StatisticsKeeper {
  private readonly written = new Map<string, { total: number; atLast: number }>();

  /** Counts rows written to `customers` and `orders`. */
  noteWritten(tx: ProjectionTx, rows: number): void {
    const s = this.written.get(tx.schema) ?? { total: 0, atLast: 0 };
    s.total += rows;
    this.written.set(tx.schema, s);
  }

  /**
   * Analyses the tables if they grew enough since the last time. Called only before statements
   * that join against them: chunks whose lookups are all answered from memory need no plans.
   */
  async refreshIfDue(tx: ProjectionTx): Promise<boolean> {
    const s = this.written.get(tx.schema) ?? { total: 0, atLast: 0 };
    this.written.set(tx.schema, s);
    if (s.total - s.atLast < Math.max(5_000, s.atLast / 2)) return false;
    s.atLast = s.total;
    await tx.client.query(
      tx.named(
        'statistics.analyze',
        (s) => `analyze ${qualified(s, 'customers')}, ${qualified(s, 'orders')}`,
      ),
    );
    return true;
  }
}
