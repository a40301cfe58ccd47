import type {
  AccountSettingsRow,
  CampaignSendRow,
  CustomerEventRow,
  CustomerRow,
  CustomerSubjectRow,
  DeadLetterTableRow,
  IngestBatchRow,
  OrderRow,
  PixelEventRow,
  ZeroPartySubmissionRow,
} from './rows.js';

/**
 * The read-model tables for kysely, by their unqualified names: the schema is a setting (and random in
 * tests), so a query names it with `withSchema(readModelSchema)`. Typed by the rows of rows.ts.
 *
 * @example
 * db.withSchema(schema).selectFrom('customers').select('email').where('account_id', '=', id);
 */
export interface ReadModelTables {
  orders: OrderRow;
  customers: CustomerRow;
  customer_events: CustomerEventRow;
  zero_party_submissions: ZeroPartySubmissionRow;
  customer_subjects: CustomerSubjectRow;
  account_settings: AccountSettingsRow;
  ingest_batches: IngestBatchRow;
  pixel_events: PixelEventRow;
  campaign_sends: CampaignSendRow;
  dead_letters: DeadLetterTableRow;
}
