import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import { customerJsonSql } from '../../src/read-api/customer-json.js';

// The reference: how the read routes wrote a customer before (PostgreSQL's json_build_object). The
// concatenation must write the same bytes, or every client's ETag and parser would see a change.
const ISO = (col: string) => `to_char(${col} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const referenceJson = (currency: string) => `json_build_object(
    'customer_id', c.customer_id, 'external_id', c.external_id,
    'email', c.email, 'phone', c.phone, 'name', c.name,
    'address', case when coalesce(c.address_street, c.address_city, c.address_state, c.address_zip,
                                  c.address_country) is null then null
               else json_build_object('street', c.address_street, 'city', c.address_city,
                      'state', c.address_state, 'zip', c.address_zip, 'country', c.address_country) end,
    'consent', json_build_object('marketing_email', c.consent_marketing_email, 'sms', c.consent_sms,
                 'suppressed', c.consent_suppressed, 'bounced', c.consent_bounced),
    'subscription', json_build_object('status', c.subscription_status,
                      'started_at', ${ISO('c.subscription_started_at')}),
    'created_at', ${ISO('c.created_at')},
    'updated_at', ${ISO('greatest(c.updated_at, s.as_of)')},
    'scores', case when s.customer_id is null then null else json_build_object(
      'churn_risk', s.churn_risk, 'p_alive', s.p_alive, 'lifecycle_state', s.lifecycle_state,
      'expected_purchases', json_build_object('value', s.expected_purchases, 'horizon_days', s.horizon_days),
      'predicted_next_purchase_at', ${ISO('s.predicted_next_purchase_at')},
      'lifetime_value', json_build_object('amount', s.lifetime_value, 'currency', ${currency}::text),
      'scored_at', ${ISO('s.as_of')},
      'model', s.model,
      'intervals', case when s.expected_purchases_low is null then null else json_build_object(
        'level', 0.9,
        'expected_purchases', json_build_object('low', s.expected_purchases_low, 'high', s.expected_purchases_high),
        'lifetime_value', json_build_object('low', s.lifetime_value_low, 'high', s.lifetime_value_high,
                            'currency', ${currency}::text)) end) end)::text`;

// Hostile text: quotes, backslashes, every kind of control character, non-ASCII, U+2028, DEL.
const TEXTS = [
  'plain',
  'say "hi"',
  'back\\slash',
  'line\nbreak\ttab\rcr',
  '\u0001\u001f\u0008\u000c',
  'Zoë 🙂 \u2028 \u007f',
  '',
  null,
];
const FLOATS = ['0.1', '1e-05', '123456789012345680000', '0', '-0.5', 'NaN', 'Infinity', '-Infinity', null];
const NUMERICS = ['80.00', '0.0000000001', '12345678901234567890.123', 'NaN', '-3', null];
const TIMES = ['2026-11-20T02:00:00.123456Z', '1969-12-31T23:59:59.9995Z', '2000-02-29T12:00:00Z', null];

let t: TestEnv;

beforeAll(async () => {
  t = await createTestEnv('customer-json');
  await t.pool.query(`
    create table c (customer_id uuid, external_id text, email text, phone text, name text,
      address_street text, address_city text, address_state text, address_zip text, address_country text,
      consent_marketing_email boolean, consent_sms boolean, consent_suppressed boolean, consent_bounced boolean,
      subscription_status text, subscription_started_at timestamptz, created_at timestamptz, updated_at timestamptz);
    create table s (customer_id uuid, churn_risk float8, p_alive float8, lifecycle_state text,
      expected_purchases float8, horizon_days int, predicted_next_purchase_at timestamptz, lifetime_value numeric,
      as_of timestamptz, model text, expected_purchases_low float8, expected_purchases_high float8,
      lifetime_value_low numeric, lifetime_value_high numeric)`);
  const pick = <T>(xs: readonly T[], i: number) => xs[i % xs.length]!;
  for (let i = 0; i < 48; i++) {
    const id = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
    const text = (k: number) => pick(TEXTS, i + k);
    const created = pick(TIMES, i) ?? '2026-01-01T00:00:00Z';
    await t.pool.query(
      `insert into c values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)`,
      [
        id,
        text(0),
        text(1),
        text(2),
        text(3),
        // Every fourth customer has no address at all (the address is then null, not an object).
        ...(i % 4 === 0 ? [null, null, null, null, null] : [text(4), text(5), text(6), text(7), text(0)]),
        i % 2 === 0,
        i % 3 === 0,
        i % 5 === 0,
        i % 7 === 0,
        text(1),
        pick(TIMES, i + 1),
        created,
        pick(TIMES, i + 2) ?? created,
      ],
    );
    // Every third customer is unscored (scores null); every other scored one has intervals.
    if (i % 3 !== 2)
      await t.pool.query(
        `insert into s values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
        [
          id,
          pick(FLOATS, i) ?? '0.5',
          pick(FLOATS, i + 1) ?? '0.5',
          text(2) ?? 'Stable',
          pick(FLOATS, i + 2) ?? '1',
          365,
          pick(TIMES, i + 3),
          pick(NUMERICS, i) ?? '0',
          pick(TIMES, i) ?? '2026-11-20T02:00:00Z',
          text(3) ?? 'bgnbd-gg',
          ...(i % 2 === 0
            ? [pick(FLOATS, i + 3), pick(FLOATS, i + 4), pick(NUMERICS, i + 1), pick(NUMERICS, i + 2)]
            : [null, null, null, null]),
        ],
      );
  }
});

afterAll(async () => {
  await t?.close();
});

describe('customerJsonSql', () => {
  it.each(['USD', 'E"U\\R'])(
    'given hostile profiles and scores (currency %j), when written, then the bytes are json_build_object’s',
    async (currency) => {
      const { rows } = await t.pool.query<{ id: string; ours: string; reference: string }>(
        `select c.customer_id as id, ${customerJsonSql('$1::text')} as ours, ${referenceJson('$1')} as reference
           from c left join s on s.customer_id = c.customer_id order by c.customer_id`,
        [currency],
      );
      expect(rows).toHaveLength(48);
      for (const r of rows) expect(r.ours, r.id).toBe(r.reference);
      // And it is JSON: every row parses.
      for (const r of rows) expect(() => JSON.parse(r.ours) as unknown).not.toThrow();
    },
  );
});
