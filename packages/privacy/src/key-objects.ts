import { createSecretKey, type KeyObject } from 'node:crypto';

// A raw Buffer key is imported into a KeyObject on every createCipheriv/createHmac call: measured on
// Node 24, AES-256-GCM of 100 bytes took 150-180 µs with a Buffer key and 30-50 µs with a KeyObject
// (HMAC-SHA256: ~100 vs ~12 µs) on the loaded bench machine. Keys are long-lived Buffers held by the
// caches, so each is imported once.
const imported = new WeakMap<Buffer, KeyObject>();

/** `key` as a KeyObject, imported once per Buffer. */
export function keyObjectOf(key: Buffer): KeyObject {
  let k = imported.get(key);
  if (!k) imported.set(key, (k = createSecretKey(key)));
  return k;
}
