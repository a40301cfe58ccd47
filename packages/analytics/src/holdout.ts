/** Share of customers in the universal holdout. */
export const HOLDOUT_SHARE = 0.05;

// FNV-1a 64-bit constants as four 16-bit limbs (least significant first), so that the 64-bit
// multiplication stays exact in doubles without BigInt.
const OFFSET_BASIS = [0x2325, 0x8422, 0x9ce4, 0xcbf2] as const; // 0xcbf29ce484222325
// FNV prime 0x100000001b3 = 2^40 + 0x1b3: limb 0 is 0x1b3, limb 2 is 0x100.

/**
 * FNV-1a 64-bit hash of the UTF-8 bytes of `text`, as 16 lower-case hex digits. Pure and
 * platform-independent (no node:crypto), so the holdout is identical in every service and recompute.
 */
export function fnv1a64(text: string): string {
  const [h0, h1, h2, h3] = fnv1a64Limbs(text);
  return [h3, h2, h1, h0].map((limb) => limb.toString(16).padStart(4, '0')).join('');
}

/**
 * Whether a customer is in the universal holdout: FNV-1a 64 over "accountId NUL customerId" (the NUL
 * keeps ("ab","c") and ("a","bc") apart), folded to 32 bits (high XOR low) and passed through
 * MurmurHash3's fmix32 finaliser so that every output bit depends on every input bit (FNV alone mixes
 * the last bytes into the high bits weakly, and ids are often sequential). The result, read as a
 * fraction of 2^32, is in the holdout when below `share` (default 5%). Deterministic and stable:
 * the same ids always give the same answer, and raising `share` only adds customers.
 */
export function isHoldout(accountId: string, customerId: string, share: number = HOLDOUT_SHARE): boolean {
  return holdoutBucket(accountId, customerId) < share;
}

/** The uniform number in [0, 1) that {@link isHoldout} compares with the share. */
export function holdoutBucket(accountId: string, customerId: string): number {
  const [h0, h1, h2, h3] = fnv1a64Limbs(`${accountId}\u0000${customerId}`);
  let x = (((h3 << 16) | h2) ^ ((h1 << 16) | h0)) >>> 0;
  x ^= x >>> 16;
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  x ^= x >>> 16;
  return (x >>> 0) / 4_294_967_296;
}

function fnv1a64Limbs(text: string): [number, number, number, number] {
  let [h0, h1, h2, h3] = OFFSET_BASIS as readonly number[] as [number, number, number, number];
  const mix = (byte: number): void => {
    h0 ^= byte;
    // (h3,h2,h1,h0) × (2^40 + 0x1b3) mod 2^64; every partial product is below 2^26, exact in a double.
    const t0 = h0 * 0x1b3;
    const t1 = h1 * 0x1b3 + (t0 >>> 16);
    const t2 = h2 * 0x1b3 + h0 * 0x100 + Math.floor(t1 / 65536);
    const t3 = h3 * 0x1b3 + h1 * 0x100 + Math.floor(t2 / 65536);
    h0 = t0 & 0xffff;
    h1 = t1 & 0xffff;
    h2 = t2 & 0xffff;
    h3 = t3 & 0xffff;
  };
  for (const ch of text) {
    const cp = ch.codePointAt(0) as number;
    if (cp < 0x80) mix(cp);
    else if (cp < 0x800) {
      mix(0xc0 | (cp >> 6));
      mix(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
      mix(0xe0 | (cp >> 12));
      mix(0x80 | ((cp >> 6) & 0x3f));
      mix(0x80 | (cp & 0x3f));
    } else {
      mix(0xf0 | (cp >> 18));
      mix(0x80 | ((cp >> 12) & 0x3f));
      mix(0x80 | ((cp >> 6) & 0x3f));
      mix(0x80 | (cp & 0x3f));
    }
  }
  return [h0, h1, h2, h3];
}
