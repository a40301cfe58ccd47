import type { Pool } from '@holdfast/postgres';
import type { CustomerRow, ReadModelTables } from '@holdfast/read-models';
import type { Kysely } from 'kysely';
import { orNothingYet, readModelsDb } from '../read-side-db.js';

/** A customer's identity and consent as the projector holds them (read_models.customers). */
export type ConsentSubject = Pick<
  CustomerRow,
  | 'customer_id'
  | 'external_id'
  | 'email'
  | 'phone'
  | 'consent_marketing_email'
  | 'consent_suppressed'
  | 'consent_sms'
  | 'consent_locked_email'
  | 'consent_locked_sms'
>;

/** What the unsubscribe and STOP routes read: customers by id or by phone. */
export class ConsentReadSide {
  private readonly db: Kysely<ReadModelTables>;

  constructor(pool: Pool, schema: string) {
    this.db = readModelsDb(pool, schema);
  }

  private rows(
    by: { customer_id: string } | { phone: string },
    accountId: string,
  ): Promise<ConsentSubject[]> {
    const [column, value] =
      'phone' in by ? (['phone', by.phone] as const) : (['customer_id', by.customer_id] as const);
    return orNothingYet(
      () =>
        this.db
          .selectFrom('customers')
          .select([
            'customer_id',
            'external_id',
            'email',
            'phone',
            'consent_marketing_email',
            'consent_suppressed',
            'consent_sms',
            'consent_locked_email',
            'consent_locked_sms',
          ])
          .where('account_id', '=', accountId)
          .where(column, '=', value)
          .orderBy('created_at')
          .orderBy('customer_id')
          .execute(),
      [],
    );
  }

  async byId(accountId: string, customerId: string): Promise<ConsentSubject | null> {
    return (await this.rows({ customer_id: customerId }, accountId))[0] ?? null;
  }

  /** Every customer of the account with this phone (E.164): a STOP from it applies to all of them. */
  byPhone(accountId: string, phone: string): Promise<ConsentSubject[]> {
    return this.rows({ phone }, accountId);
  }
}
