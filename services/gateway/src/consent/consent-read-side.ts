import type { CustomerRow } from '@holdfast/read-models';
import { ReadModelReader } from '../read-model-reader.js';

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

/** What the unsubscribe and STOP routes read: customers by id or by phone. */
export class ConsentReadSide extends ReadModelReader {
  private subjects(where: string, values: unknown[]): Promise<ConsentSubject[]> {
    return this.rows<ConsentSubject>(
      `select customer_id, external_id, email, phone, consent_marketing_email, consent_suppressed, consent_sms
         from ${this.s}.customers where account_id = $1 and ${where} order by created_at, customer_id`,
      values,
    );
  }

  async byId(accountId: string, customerId: string): Promise<ConsentSubject | null> {
    return (await this.subjects('customer_id = $2', [accountId, customerId]))[0] ?? null;
  }

  /** Every customer of the account with this phone (E.164): a STOP from it applies to all of them. */
  byPhone(accountId: string, phone: string): Promise<ConsentSubject[]> {
    return this.subjects('phone = $2', [accountId, phone]);
  }
}
