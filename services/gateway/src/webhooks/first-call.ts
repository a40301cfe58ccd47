import type { Pool } from '@holdfast/db';

/**
 * Sets control.tiles.first_call_at of the custom integration on its first successful call to
 * POST /webhooks/custom-api (spec rule 12: the tile shows "awaiting setup" until then; ingest calls
 * do not change it). Reads first and writes only when still unset, and remembers accounts already
 * marked: every statement on control.tiles fires the `holdfast_credentials` notification that empties
 * every gateway's credential cache, so an unconditional UPDATE per call would defeat that cache.
 */
export class FirstCallMarker {
  private readonly marked = new Set<string>();

  constructor(private readonly pool: Pool) {}

  async mark(accountId: string, now: Date): Promise<void> {
    if (this.marked.has(accountId)) return;
    const { rows } = await this.pool.query<{ first_call_at: Date | null }>(
      `select first_call_at from control.tiles where account_id = $1 and tile = 'custom_integration'`,
      [accountId],
    );
    if (rows[0] && rows[0].first_call_at === null) {
      await this.pool.query(
        `update control.tiles set first_call_at = $2
          where account_id = $1 and tile = 'custom_integration' and first_call_at is null`,
        [accountId, now],
      );
    }
    if (rows[0]) this.marked.add(accountId);
  }
}
