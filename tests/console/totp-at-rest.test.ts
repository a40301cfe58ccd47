// The second factor at rest (openTotpSecret and the ConsoleKeyring), given/when/then: a sealed secret
// opens for its own user only, under any key still configured, and a rotation re-wraps it.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConsoleKeyring, SecretUnreadableError } from '@holdfast/secrets';
import { openTotpSecret } from '@holdfast/control-plane';

const k1 = { id: 'c1', key: randomBytes(32) };
const k2 = { id: 'c2', key: randomBytes(32) };
const SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
const userId = '00000000-0000-4000-8000-000000000001';

function sealedRow(keyring: ConsoleKeyring, id = userId) {
  const s = keyring.seal(SECRET, `console-totp/${id}`);
  return {
    id,
    totp_secret: null,
    totp_key_id: s.keyId,
    totp_wrapped_key: s.wrappedKey,
    totp_ciphertext: s.ciphertext,
  };
}

describe('the TOTP secret at rest', () => {
  it('given a secret sealed for a user, when opened with the console keys, then it is the enrolled secret', () => {
    const keyring = new ConsoleKeyring([k1]);
    const row = sealedRow(keyring);
    expect(row.totp_ciphertext.toString('latin1')).not.toContain(SECRET);
    expect(openTotpSecret(row, keyring)).toBe(SECRET);
  });

  it("given a sealed secret copied onto another user's row, when opened, then it does not open", () => {
    const keyring = new ConsoleKeyring([k1]);
    const moved = { ...sealedRow(keyring), id: '00000000-0000-4000-8000-000000000002' };
    expect(() => openTotpSecret(moved, keyring)).toThrow(SecretUnreadableError);
  });

  it('given a new key put first, when a secret sealed under the old one is opened, then it still opens; after a rewrap, without the old key too', () => {
    const row = sealedRow(new ConsoleKeyring([k1]));
    const rotated = new ConsoleKeyring([k2, k1]);
    expect(openTotpSecret(row, rotated)).toBe(SECRET);
    const next = rotated.rewrap({
      keyId: row.totp_key_id,
      wrappedKey: row.totp_wrapped_key,
      ciphertext: row.totp_ciphertext,
    });
    expect(next.keyId).toBe('c2');
    const rewrapped = { ...row, totp_key_id: next.keyId, totp_wrapped_key: next.wrappedKey };
    expect(openTotpSecret(rewrapped, new ConsoleKeyring([k2]))).toBe(SECRET);
    expect(() => openTotpSecret(row, new ConsoleKeyring([k2]))).toThrow(
      /no master key "c1" in HOLDFAST_CONSOLE_KEYS/,
    );
  });

  it('given a row enrolled before sealing (still in clear), when opened, then its clear secret; none enrolled: null', () => {
    const keyring = new ConsoleKeyring([k1]);
    const clear = {
      id: userId,
      totp_secret: SECRET,
      totp_key_id: null,
      totp_wrapped_key: null,
      totp_ciphertext: null,
    };
    expect(openTotpSecret(clear, keyring)).toBe(SECRET);
    expect(openTotpSecret({ ...clear, totp_secret: null }, keyring)).toBeNull();
  });
});
