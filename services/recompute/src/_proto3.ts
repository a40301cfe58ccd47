import pg from 'pg';
import { createPool } from '@holdfast/db';
import { ensureReadModelSchema } from '../../projector/src/index.js';
import { loadSyntheticOrders } from './bench/bench-orders.js';
const admin = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
await admin.connect();
await admin.query('drop database if exists hf_proto_recompute');
await admin.query('create database hf_proto_recompute');
await admin.end();
const pool = createPool('postgres://postgres@127.0.0.1:5432/hf_proto_recompute', 'proto');
await ensureReadModelSchema(pool);
const t = performance.now();
const r = await loadSyntheticOrders(
  pool,
  'read_models',
  '11111111-1111-4111-8111-111111111111',
  Number(process.argv[2]),
  new Date('2026-11-22T02:00:00Z'),
);
console.log(r, ((performance.now() - t) / 1000).toFixed(1), 's');
await pool.end();
