import { createHash } from 'node:crypto';

/**
 * A name-based UUID (version 5 layout: SHA-1 of `namespace` then `name`, the first 16 bytes, version
 * and variant bits set): the same name gives the same id in every process and on every replay, which
 * is what makes a re-appended record or a rebuild produce the ids it produced before. The ids
 * already stored depend on every byte here: change nothing.
 *
 * @example
 * nameUuid(`holdfast.delivery\u0000${subscriptionId}\u0000${trackingId}`); // same inputs, same id
 */
export function nameUuid(name: string, namespace?: Buffer): string {
  const hash = createHash('sha1');
  if (namespace) hash.update(namespace);
  const b = hash.update(name, 'utf8').digest().subarray(0, 16);
  b[6] = (b[6]! & 0x0f) | 0x50; // version 5
  b[8] = (b[8]! & 0x3f) | 0x80; // RFC 4122 variant
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
