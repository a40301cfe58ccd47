import { Secret, TOTP } from 'otpauth';

/** RFC 6238 as every authenticator app reads it: SHA-1, 6 digits, 30 s. */
const PERIOD_S = 30;

function totp(secret: string, label = 'Holdfast'): TOTP {
  return new TOTP({
    issuer: 'Holdfast',
    label,
    algorithm: 'SHA1',
    digits: 6,
    period: PERIOD_S,
    secret: Secret.fromBase32(secret),
  });
}

/** A new secret (160 bits, base32) for enrolment. */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

/** The otpauth:// URI an authenticator app takes (the label is what the app shows). */
export function totpUri(secret: string, label: string): string {
  return totp(secret, label).toString();
}

/** The code for `at` (tests and the local quick start only). */
export function totpCode(secret: string, at: Date): string {
  return totp(secret).generate({ timestamp: at.getTime() });
}

/**
 * The time step a code belongs to when it is valid at `at` (one step of clock drift either way),
 * else null. The caller takes each step once (`takeTotpStep`), so a code cannot be replayed.
 */
export function totpStep(secret: string, code: string, at: Date): number | null {
  const token = code.replace(/\s+/g, '');
  if (!/^\d{6}$/.test(token)) return null;
  let delta: number | null;
  try {
    delta = totp(secret).validate({ token, timestamp: at.getTime(), window: 1 });
  } catch {
    return null;
  }
  if (delta === null) return null;
  return Math.floor(at.getTime() / 1000 / PERIOD_S) + delta;
}
