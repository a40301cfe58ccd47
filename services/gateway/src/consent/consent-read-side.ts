import type { Pool } from '@holdfast/db';
import type { CustomerRow } from '@holdfast/read-models';

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
>;

const UNDEFINED_TABLE = '42P01';
const UNDEFINED_SCHEMA = '3F000';

/** What the unsubscribe and STOP routes read: customers by id or by phone. */
export class ConsentReadSide {
  private readonly s: string;

  constructor(
    private readonly pool: Pool,
    schema: string,
  ) {
    this.s = `"${schema.replace(/"/g, '""')}"`;
  }

  private async rows(where: string, values: unknown[]): Promise<ConsentSubject[]> {
    try {
      const { rows } = await this.pool.query<ConsentSubject>(
        `select customer_id, external_id, email, phone, consent_marketing_email, consent_suppressed, consent_sms
           from ${this.s}.customers where account_id = $1 and ${where} order by created_at, customer_id`,
        values,
      );
      return rows;
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === UNDEFINED_TABLE || code === UNDEFINED_SCHEMA) return [];
      throw err;
    }
  }

  async byId(accountId: string, customerId: string): Promise<ConsentSubject | null> {
    return (await this.rows('customer_id = $2', [accountId, customerId]))[0] ?? null;
  }

  /** Every customer of the account with this phone (E.164): a STOP from it applies to all of them. */
  byPhone(accountId: string, phone: string): Promise<ConsentSubject[]> {
    return this.rows('phone = $2', [accountId, phone]);
  }
}
