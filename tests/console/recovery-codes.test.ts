// Recovery codes (newRecoveryCodes, normalizeRecoveryCode), given/when/then.
import { describe, expect, it } from 'vitest';
import {
  newRecoveryCodes,
  normalizeRecoveryCode,
  RECOVERY_CODE_COUNT,
} from '../../services/console/src/recovery-codes.js';

describe('recovery codes', () => {
  it('given a new set, when made, then ten distinct codes of 16 base32 letters in groups of four', () => {
    const codes = newRecoveryCodes();
    expect(codes).toHaveLength(RECOVERY_CODE_COUNT);
    expect(new Set(codes).size).toBe(RECOVERY_CODE_COUNT);
    for (const c of codes) expect(c).toMatch(/^[A-Z2-7]{4}(-[A-Z2-7]{4}){3}$/);
  });

  it('given a code typed in lower case with spaces or without dashes, when normalized, then the form it was shown in', () => {
    const [code] = newRecoveryCodes(1);
    expect(normalizeRecoveryCode(` ${code!.toLowerCase().replace(/-/g, ' ')} `)).toBe(code);
    expect(normalizeRecoveryCode(code!.replace(/-/g, ''))).toBe(code);
  });

  it('given something that cannot be a code (a TOTP code, too short, letters outside base32), when normalized, then null', () => {
    for (const s of ['123456', 'ABCD-EFGH-JKLM', 'ABCD-EFGH-JKLM-NPQ1', ''])
      expect(normalizeRecoveryCode(s), s).toBeNull();
  });
});
