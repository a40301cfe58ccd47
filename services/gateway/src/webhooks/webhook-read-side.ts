import type { Pool } from '@holdfast/postgres';
import type { CustomerEventRow, ReadModelTables } from '@holdfast/read-models';
import type { Kysely } from 'kysely';
import { orNothingYet, readModelsDb } from '../read-side-db.js';

/**
 * The projector's answer for one custom-api event (a row of read_models.customer_events);
 * `content_key` is customApiContentKey of the first event of the key (null when stored before it was
 * recorded).
 */
export type ResolvedCustomerEvent = Pick<
  CustomerEventRow,
  'event_id' | 'customer_id' | 'link_method' | 'is_new' | 'content_key'
>;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * What the inbound webhooks read back from the projector's read models. Dedup only counts what was
 * applied: a key is a duplicate once its row exists, never because a request was merely received, so
 * an attempt that failed before the projector applied it is processed again on retry. Before the
 * projector has created its schema, every lookup answers "nothing yet".
 */
export class WebhookReadSide {
  private readonly db: Kysely<ReadModelTables>;

  constructor(pool: Pool, schema: string) {
    this.db = readModelsDb(pool, schema);
  }

  /** The applied custom-api event of this dedup key, or null. */
  async customerEvent(accountId: string, dedupKey: string): Promise<ResolvedCustomerEvent | null> {
    const row = await orNothingYet(
      () =>
        this.db
          .selectFrom('customer_events')
          .select(['event_id', 'customer_id', 'link_method', 'is_new', 'content_key'])
          .where('account_id', '=', accountId)
          .where('dedup_key', '=', dedupKey)
          .executeTakeFirst(),
      undefined,
    );
    return row ?? null;
  }

  /** Whether a zero-party submission with this content key was applied. */
  async zeroPartyApplied(accountId: string, dedupKey: string): Promise<boolean> {
    const row = await orNothingYet(
      () =>
        this.db
          .selectFrom('zero_party_submissions')
          .select('dedup_key')
          .where('account_id', '=', accountId)
          .where('dedup_key', '=', dedupKey)
          .executeTakeFirst(),
      undefined,
    );
    return row !== undefined;
  }

  /**
   * Polls until the projector has applied a custom-api event of `dedupKey` (ours, or a concurrent
   * duplicate that won), or `timeoutMs` passes (null). Starts at 5 ms and backs off to 100 ms: a
   * caught-up projector answers within a few tens of milliseconds.
   */
  async waitForCustomerEvent(
    accountId: string,
    dedupKey: string,
    timeoutMs: number,
  ): Promise<ResolvedCustomerEvent | null> {
    const deadline = performance.now() + timeoutMs;
    let delay = 5;
    for (;;) {
      const row = await this.customerEvent(accountId, dedupKey);
      if (row) return row;
      const left = deadline - performance.now();
      if (left <= 0) return null;
      await sleep(Math.min(delay, left));
      delay = Math.min(100, delay * 2);
    }
  }
}
