import { isPlainObject } from '../shared/text.js';

/**
 * JSON with object keys sorted at every depth, so equal content gives equal text whatever the key
 * order of the sender. Otherwise `JSON.stringify` semantics (undefined members skipped, non-finite
 * numbers as null).
 *
 * @example
 * canonicalJson({ b: 1, a: [{ d: 2, c: 3 }] }); // '{"a":[{"c":3,"d":2}],"b":1}'
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value))
    return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  if (isPlainObject(value)) {
    const members = Object.keys(value)
      .sort()
      .filter((k) => value[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const encoder = new TextEncoder();

/**
 * 64-bit FNV-1a of the UTF-8 bytes of `text`, as 16 hex digits. Not cryptographic: a stable, portable
 * dedup key. Computed on four 16-bit limbs so it needs no BigInt.
 *
 * @example
 * fnv1a64('a'); // 'af63dc4c8601ec8c'
 */
export function fnv1a64(text: string): string {
  // Offset basis 0xcbf29ce484222325, least significant limb first.
  let h0 = 0x2325;
  let h1 = 0x8422;
  let h2 = 0x9ce4;
  let h3 = 0xcbf2;
  for (const byte of encoder.encode(text)) {
    h0 ^= byte;
    // h * 0x100000001b3 (mod 2^64) = h * 0x1b3 + (h << 40)
    const t0 = h0 * 0x1b3;
    const t1 = h1 * 0x1b3 + (t0 >>> 16);
    const t2 = h2 * 0x1b3 + h0 * 0x100 + (t1 >>> 16);
    const t3 = h3 * 0x1b3 + h1 * 0x100 + (t2 >>> 16);
    h0 = t0 & 0xffff;
    h1 = t1 & 0xffff;
    h2 = t2 & 0xffff;
    h3 = t3 & 0xffff;
  }
  const hex = (n: number) => n.toString(16).padStart(4, '0');
  return hex(h3) + hex(h2) + hex(h1) + hex(h0);
}
