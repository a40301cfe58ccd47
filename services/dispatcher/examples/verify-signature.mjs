#!/usr/bin/env node
// A minimal Holdfast webhook receiver (Node ≥ 18, no dependencies): verifies X-Service-Signature over
// the RAW body and the Standard Webhooks signature (webhook-id, webhook-timestamp within 5 minutes,
// webhook-signature), deduplicates on X-Service-Delivery, and answers 2xx only for deliveries it
// accepted.
//
//   WEBHOOK_SECRET=whsec_... PORT=8080 node verify-signature.mjs
//
// It prints one JSON line per request:
// {"delivery", "event", "verified", "standard_verified", "duplicate", "data"}.
// See docs/webhooks.md.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import { pathToFileURL } from 'node:url';

/**
 * True when `signature` (hex) is HMAC-SHA256(secret, rawBody). Compute it over the bytes exactly as
 * received: parsing and re-serialising the JSON changes them and breaks the signature.
 */
export function verifySignature(secret, rawBody, signature) {
  const expected = createHmac('sha256', secret).update(rawBody).digest();
  const given = Buffer.from(typeof signature === 'string' ? signature : '', 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * True when one of the space-separated `v1,<base64>` entries of `webhook-signature` is
 * HMAC-SHA256(base64-decoded secret after `whsec_`, `${id}.${timestamp}.${rawBody}`) and the timestamp
 * is within `toleranceSeconds` of now: a captured delivery cannot be replayed later.
 */
export function verifyStandard(
  secret,
  headers,
  rawBody,
  toleranceSeconds = 300,
  nowSeconds = Date.now() / 1000,
) {
  const id = headers['webhook-id'];
  const ts = headers['webhook-timestamp'];
  const sigs = headers['webhook-signature'];
  if (typeof id !== 'string' || typeof ts !== 'string' || typeof sigs !== 'string') return false;
  if (!/^\d+$/.test(ts) || Math.abs(nowSeconds - Number(ts)) > toleranceSeconds) return false;
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${ts}.`).update(rawBody).digest();
  return sigs.split(' ').some((entry) => {
    const [version, sig] = entry.split(',');
    const given = Buffer.from(sig ?? '', 'base64');
    return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
  });
}

/** Starts the receiver; `onDelivery` sees every verified, first-time delivery. */
export function startReceiver({ secret, port = 0, onDelivery = () => {} }) {
  const seen = new Set(); // use a durable store (a unique key in your database) in production
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const delivery = req.headers['x-service-delivery'];
      const event = req.headers['x-service-event'];
      const verified = verifySignature(secret, raw, req.headers['x-service-signature']);
      const standard_verified = verifyStandard(secret, req.headers, raw);
      const duplicate = verified && seen.has(delivery);
      let data = null;
      if (verified && !duplicate) {
        seen.add(delivery);
        data = JSON.parse(raw.toString('utf8')).data;
        onDelivery({ delivery, event, data });
      }
      console.log(JSON.stringify({ delivery, event, verified, standard_verified, duplicate, data }));
      // 401 on a bad signature; 200 on a duplicate too, so the sender stops retrying it.
      res.writeHead(verified ? 200 : 401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ok: verified }));
    });
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const secret = process.env.WEBHOOK_SECRET;
  if (!secret) {
    console.error('set WEBHOOK_SECRET to the whsec_ secret of the subscription');
    process.exit(2);
  }
  const server = await startReceiver({ secret, port: Number(process.env.PORT ?? 8080) });
  console.log(JSON.stringify({ listening: `http://127.0.0.1:${server.address().port}` }));
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}
