import { randomUUID } from 'node:crypto';
import { EventCodec } from '@holdfast/contracts';
import { createPool } from '@holdfast/db';
import { silentLogger } from '@holdfast/platform';
import type { ConsumedRecord } from '@holdfast/kafka';
import { commerceProjection } from '/work/main/services/projector/src/projections/commerce/commerce.projection.ts';
import { ProjectionRunner } from '/work/main/services/projector/src/runtime/projection-runner.ts';
import { ensureReadModelSchema } from '/work/main/services/projector/src/schema/ensure-read-model-schema.ts';
import { metadata, orderRow, orderUpserted } from '/work/main/services/projector/src/test-support/events.ts';
import pg from 'pg';

const n = Number(process.argv[2] ?? 50000);
const admin = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
await admin.connect();
await admin.query('drop database if exists prof_x with (force)');
await admin.query('create database prof_x');
const pool = createPool('postgres://postgres@127.0.0.1:5432/prof_x', 'prof', 4);
const times = new Map<string, number>();
const origConnect = pool.connect.bind(pool);
(pool as any).connect = async () => {
  const c = await origConnect();
  if (!(c as any).__wrapped) {
    const q = c.query.bind(c);
    (c as any).query = async (sql: any, params?: any) => {
      const t = performance.now();
      try { return await q(sql, params); } finally {
        const key = String(typeof sql === 'string' ? sql : sql.text).replace(/\s+/g, ' ').trim().slice(0, 60);
        times.set(key, (times.get(key) ?? 0) + performance.now() - t);
      }
    };
    (c as any).__wrapped = true;
  }
  return c;
};
const codec = await EventCodec.connect('http://127.0.0.1:8081/apis/ccompat/v7');
const account = randomUUID();
const customers = n / 10;
const values = Array.from({ length: n }, (_, i) => codec.encode('OrderUpserted', orderUpserted(metadata(account, new Date(Date.UTC(2025,0,1)+i).toISOString()), orderRow({ order_id: `o-${i}`, customer_id: `c-${i % customers}`, email: `c${i % customers}@example.com`, phone: i % 3 === 0 ? `+1512${5000000 + (i % customers)}` : null, customer_name: `C ${i % customers}`, order_amount: (i % 20000) / 100, refunded_amount: i % 10 === 0 ? 1.5 : null }))));
await ensureReadModelSchema(pool, 'rm');
const runner = new ProjectionRunner(commerceProjection, { pool, codec, schema: 'rm', logger: silentLogger, publisher: { publish: () => Promise.resolve() } });
const t0 = performance.now();
for (let i = 0; i < n; i += 5000) {
  const records = values.slice(i, i + 5000).map((value, k): ConsumedRecord => ({ topic: 'b', partition: 0, offset: String(i + k), key: null, value, timestamp: '0' }));
  await runner.handle({ topic: 'b', partition: 0, records });
}
const total = performance.now() - t0;
console.log('rows/s', Math.round(n / (total / 1000)), 'total ms', Math.round(total));
for (const [k, v] of [...times].sort((a, b) => b[1] - a[1])) console.log(Math.round(v).toString().padStart(7), k);
const ids = Array.from({ length: customers }, (_, i) => `c-${i}`);
const acc = ids.map(() => account);
const cols = `c.account_id, c.customer_id, c.external_id, c.email, c.phone, c.name, c.address_street,
  c.address_city, c.address_state, c.address_zip, c.address_country, c.consent_marketing_email,
  c.consent_sms, c.consent_suppressed, c.consent_bounced, c.source_label, c.subscription_status,
  to_char(c.subscription_started_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as s, to_char(c.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as cr, to_char(c.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as up`;
for (const q of [`select ${cols} from unnest($1::uuid[], $2::text[]) k(a, v) join rm.customers c on c.account_id = k.a and c.external_id = k.v and c.external_id is not null`,
                 `select c.customer_id from unnest($1::uuid[], $2::text[]) k(a, v) join rm.customers c on c.account_id = k.a and c.external_id = k.v and c.external_id is not null`]) {
  for (let k = 0; k < 3; k++) {
    const t = performance.now();
    const r = await pool.query('explain (analyze, buffers) ' + q, [acc, ids]);
    console.log('client ms', (performance.now() - t).toFixed(0));
    if (k === 2) console.log(r.rows.map((x: any) => x['QUERY PLAN']).join('\n'));
  }
}
await pool.end();
await admin.query('drop database prof_x with (force)');
await admin.end();
