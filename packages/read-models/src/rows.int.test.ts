import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import { ensureReadModelSchema } from './ensure-read-model-schema.js';
import * as rows from './rows.js';

let t: TestEnv;

beforeAll(async () => {
  t = await createTestEnv('rows');
  await ensureReadModelSchema(t.pool, 'rm_rows');
});

afterAll(() => t?.close());

const columnsOf = async (table: string) =>
  (
    await t.pool.query<{ column_name: string }>(
      `select column_name from information_schema.columns
        where table_schema = 'rm_rows' and table_name = $1 order by ordinal_position`,
      [table],
    )
  ).rows.map((r) => r.column_name);

describe('the typed rows match the tables the DDL creates', () => {
  it('given the orders table, then OrderRow names exactly its columns, in order', async () => {
    expect(await columnsOf('orders')).toEqual(rows.ORDER_ROW_COLUMNS);
  });

  it('given the customers table, then CustomerRow names exactly its columns, in order', async () => {
    expect(await columnsOf('customers')).toEqual(rows.CUSTOMER_ROW_COLUMNS);
  });
  it('given the customer_events table, then CustomerEventRow names exactly its columns, in order', async () => {
    expect(await columnsOf('customer_events')).toEqual(rows.CUSTOMER_EVENT_ROW_COLUMNS);
  });

  it('given the zero_party_submissions table, then ZeroPartySubmissionRow names exactly its columns, in order', async () => {
    expect(await columnsOf('zero_party_submissions')).toEqual(rows.ZERO_PARTY_SUBMISSION_ROW_COLUMNS);
  });

  it('given the customer_subjects table, then CustomerSubjectRow names exactly its columns, in order', async () => {
    expect(await columnsOf('customer_subjects')).toEqual(rows.CUSTOMER_SUBJECT_ROW_COLUMNS);
  });

  it('given the account_settings table, then AccountSettingsRow names exactly its columns, in order', async () => {
    expect(await columnsOf('account_settings')).toEqual(rows.ACCOUNT_SETTINGS_ROW_COLUMNS);
  });

  it('given the ingest_batches table, then IngestBatchRow names exactly its columns, in order', async () => {
    expect(await columnsOf('ingest_batches')).toEqual(rows.INGEST_BATCH_ROW_COLUMNS);
  });

  it('given the pixel_events table, then PixelEventRow names exactly its columns, in order', async () => {
    expect(await columnsOf('pixel_events')).toEqual(rows.PIXEL_EVENT_ROW_COLUMNS);
  });

  it('given the campaign_sends table, then CampaignSendRow names exactly its columns, in order', async () => {
    expect(await columnsOf('campaign_sends')).toEqual(rows.CAMPAIGN_SEND_ROW_COLUMNS);
  });

  it('given the dead_letters table, then DeadLetterTableRow names exactly its columns, in order', async () => {
    expect(await columnsOf('dead_letters')).toEqual(rows.DEAD_LETTER_TABLE_ROW_COLUMNS);
  });
});
