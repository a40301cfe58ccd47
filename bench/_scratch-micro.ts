import { randomBytes, createHmac, createSecretKey } from 'node:crypto';
import { blindIndex, sealFields } from '@holdfast/privacy';
const key = randomBytes(32);
const vals = Array.from({ length: 15000 }, (_, i) => `person${i}@example.com`);
const fields = { email: 'ann@example.com', phone: '+15550001111', customer_name: 'Ann Smith', shipping_city: 'Springfield', shipping_state: 'IL', shipping_zip: '62701' };
for (let r = 0; r < 4; r++) {
  let t = performance.now();
  for (const v of vals) blindIndex(key, 'email', v);
  const h = performance.now() - t;
  t = performance.now();
  for (let i = 0; i < 5000; i++) sealFields(key, `acc/x:abcdefghijklmnopqrstuv/${i}-0000-0000-0000-000000000000`, fields);
  const s = performance.now() - t;
  t = performance.now();
  for (let i = 0; i < 5000; i++) randomBytes(12);
  const rb = performance.now() - t;
  t = performance.now();
  for (let i = 0; i < 5000; i++) JSON.stringify(fields);
  const js = performance.now() - t;
  console.log(`15000 HMAC ${h.toFixed(0)} ms; 5000 seals ${s.toFixed(0)} ms; 5000 randomBytes(12) ${rb.toFixed(0)} ms; 5000 JSON ${js.toFixed(0)} ms`);
}
