// One-time recovery codes for the second factor: when the authenticator app is lost, one code signs
// in once in place of a TOTP code. 80 random bits each (16 base32 letters, in groups of 4), so the
// SHA-256 digest the database keeps cannot be reversed by trying every code.
import { randomBytes } from 'node:crypto';

/** How many codes a person gets at once. */
export const RECOVERY_CODE_COUNT = 10;
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** `count` fresh codes, as shown: `ABCD-EFGH-JKLM-NPQR`. */
export function newRecoveryCodes(count = RECOVERY_CODE_COUNT): string[] {
  return Array.from({ length: count }, () => {
    const bytes = randomBytes(10);
    let bits = 0n;
    for (const b of bytes) bits = (bits << 8n) | BigInt(b);
    let s = '';
    for (let i = 0; i < 16; i++) s = ALPHABET[Number((bits >> BigInt(i * 5)) & 31n)] + s;
    return s.match(/.{4}/g)!.join('-');
  });
}

/**
 * A code as typed (any case, spaces or dashes anywhere) in the form it was shown, or null when it
 * cannot be one (so a wrong shape is a failure like any other, never a database query).
 *
 * @example
 * normalizeRecoveryCode(' abcd efgh-jklm npqr '); // 'ABCD-EFGH-JKLM-NPQR'
 */
export function normalizeRecoveryCode(input: string): string | null {
  const s = input.toUpperCase().replace(/[\s-]+/g, '');
  if (!/^[A-Z2-7]{16}$/.test(s)) return null;
  return s.match(/.{4}/g)!.join('-');
}
