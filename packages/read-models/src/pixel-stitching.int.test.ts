import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import { ensureReadModelSchema } from './ensure-read-model-schema.js';

let t: TestEnv;
const account = randomUUID();
const customer = randomUUID();

async function pixel(session: string | null, anon: string, at: string, utm?: string): Promise<string> {
  const id = randomUUID();
  await t.pool.query(
    `insert into read_models.pixel_events (account_id, event_id, pixel_key_id, origin, event_type, occurred_at,
       anonymous_id, session_id, raw_props, received_at)
     values ($1, $2, 'pk', 'https://shop.example.com', 'page_view', $3, $4, $5, $6, $3)`,
    [account, id, at, anon, session, utm ? JSON.stringify({ utm_content: utm }) : null],
  );
  return id;
}

beforeAll(async () => {
  t = await createTestEnv('stitching');
  await ensureReadModelSchema(t.pool);
  await t.pool.query(
    `insert into read_models.campaign_sends (tracking_id, account_id, customer_id, campaign_type, channel, provider,
       url, sent_at, task_id, event_id, received_at)
     values ('hft_1', $1, $2, 'win_back', 'email', 'local', 'https://shop.example.com/?utm_content=hft_1',
       '2026-11-01T00:00:00Z', null, 'e1', '2026-11-01T00:00:00Z')`,
    [account, customer],
  );
});
afterAll(() => t?.close());

describe('pixel session stitching (read_models.pixel_events_stitched)', () => {
  it('links every event of a session that landed on a URL carrying an issued utm_content, and nothing else', async () => {
    const landing = await pixel('s1', 'a1', '2026-11-02T10:00:00Z', 'hft_1');
    const later = await pixel('s1', 'a1', '2026-11-02T10:05:00Z');
    const otherSession = await pixel('s2', 'a1', '2026-11-03T10:00:00Z');
    const unknownUtm = await pixel('s3', 'a2', '2026-11-02T10:00:00Z', 'merchant-own-campaign');
    const noSession = await pixel(null, 'a3', '2026-11-02T11:00:00Z', 'hft_1');
    const { rows } = await t.pool.query<{
      event_id: string;
      customer_id: string | null;
      tracking_id: string | null;
    }>(
      'select event_id, customer_id, tracking_id from read_models.pixel_events_stitched where account_id = $1',
      [account],
    );
    const by = new Map(rows.map((r) => [r.event_id, r]));
    expect(by.get(landing)).toMatchObject({ customer_id: customer, tracking_id: 'hft_1' });
    expect(by.get(later)).toMatchObject({ customer_id: customer, tracking_id: 'hft_1' });
    expect(by.get(noSession)).toMatchObject({ customer_id: customer });
    expect(by.get(otherSession)?.customer_id).toBeNull();
    expect(by.get(unknownUtm)?.customer_id).toBeNull();
  });
});
