import { describe, expect, it } from 'vitest';
import { HOLDOUT_SHARE, fnv1a64, holdoutBucket, isHoldout } from './holdout.js';

describe('fnv1a64', () => {
  it('matches the published FNV-1a 64-bit test vectors', () => {
    expect(fnv1a64('')).toBe('cbf29ce484222325');
    expect(fnv1a64('a')).toBe('af63dc4c8601ec8c');
    expect(fnv1a64('foobar')).toBe('85944171f73967e8');
  });
  it('hashes the UTF-8 bytes (checked against a BigInt reference)', () => {
    const reference = (text: string): string => {
      let h = 0xcbf29ce484222325n;
      for (const byte of new TextEncoder().encode(text))
        h = ((h ^ BigInt(byte)) * 0x100000001b3n) & 0xffffffffffffffffn;
      return h.toString(16).padStart(16, '0');
    };
    for (const text of ['héllo', '€uro', 'emoji 😀', 'acct-1\u0000cust-42'])
      expect(fnv1a64(text)).toBe(reference(text));
  });
});

describe('isHoldout', () => {
  it('holds out about 5% of 100,000 sequential ids', () => {
    let held = 0;
    for (let i = 0; i < 100_000; i++) if (isHoldout('acct-1', `cust-${i}`)) held++;
    // Binomial(100000, 0.05): sd ≈ 69, so ±350 is 5 sd.
    expect(Math.abs(held - 5_000)).toBeLessThan(350);
    expect(HOLDOUT_SHARE).toBe(0.05);
  });

  it('is about 5% per account too, and accounts are independent', () => {
    let both = 0;
    let first = 0;
    for (let i = 0; i < 100_000; i++) {
      const a = isHoldout('shop-a', String(i));
      if (a) first++;
      if (a && isHoldout('shop-b', String(i))) both++;
    }
    expect(Math.abs(first - 5_000)).toBeLessThan(350);
    expect(both).toBeLessThan(400); // ≈ 250 (0.25%) if independent; 5,000 if the account were ignored
  });

  it('is deterministic and stable (pinned values)', () => {
    const ids = Array.from({ length: 2000 }, (_, i) => `c${i}`);
    const first = ids.filter((id) => isHoldout('acct', id));
    expect(ids.filter((id) => isHoldout('acct', id))).toEqual(first);
    // Pinned so that any change to the hash (which would move customers in or out) fails loudly.
    expect(holdoutBucket('acct', 'c0')).toBe(0.9749721847474575);
    expect(first.slice(0, 5)).toEqual(['c35', 'c47', 'c49', 'c135', 'c192']);
  });

  it('separates the account and customer parts and grows monotonically with the share', () => {
    expect(holdoutBucket('ab', 'c')).not.toBe(holdoutBucket('a', 'bc'));
    for (let i = 0; i < 1000; i++) {
      if (isHoldout('acct', `x${i}`)) expect(isHoldout('acct', `x${i}`, 0.1)).toBe(true);
    }
    expect(isHoldout('acct', 'x', 0)).toBe(false);
    expect(isHoldout('acct', 'x', 1)).toBe(true);
  });
});
