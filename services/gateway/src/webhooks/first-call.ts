import type { Database } from '@holdfast/postgres';
import type { Kysely } from 'kysely';

/**
 * Sets control.tiles.first_call_at of the custom integration on its first successful call to
 * POST /webhooks/custom-api (spec rule 12: the tile shows "awaiting setup" until then; ingest calls
 * do not change it). Reads first and writes only when still unset, and remembers accounts already
 * marked: every statement on control.tiles fires the `holdfast_credentials` notification that empties
 * every gateway's credential cache, so an unconditional UPDATE per call would defeat that cache.
 */
export class FirstCallMarker {
  private readonly marked = new Set<string>();

  constructor(private readonly db: Kysely<Database>) {}

  async mark(accountId: string, now: Date): Promise<void> {
    if (this.marked.has(accountId)) return;
    const tile = await this.db
      .selectFrom('control.tiles')
      .select('first_call_at')
      .where('account_id', '=', accountId)
      .where('tile', '=', 'custom_integration')
      .executeTakeFirst();
    if (tile && tile.first_call_at === null) {
      await this.db
        .updateTable('control.tiles')
        .set({ first_call_at: now })
        .where('account_id', '=', accountId)
        .where('tile', '=', 'custom_integration')
        .where('first_call_at', 'is', null)
        .execute();
    }
    if (tile) this.marked.add(accountId);
  }
}
