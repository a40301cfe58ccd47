import {
  createPrivateKey,
  createPublicKey,
  diffieHellman,
  generateKeyPairSync,
  hkdfSync,
  randomBytes,
  type KeyObject,
} from 'node:crypto';
import { ConfigError } from '@holdfast/platform';
import { gcmOpen, gcmSeal } from './aes-gcm.js';
import type { SealedSecret } from './secrets-keyring.js';

/**
 * Sealing without the power to open: the public gateway mints webhook signing secrets (POST
 * /v1/webhooks) but must never hold a master key nor open any webhook secret (docs/security.md). So
 * it seals to an X25519 public key derived from a master key (HKDF, purpose `webhook-seal`): an
 * ephemeral key agreement wraps the fresh data key, which only the holder of the master key (the
 * dispatcher, the CLI) can unwrap. Such a secret's `key_id` is `x25519:<master key id>`;
 * `SecretsKeyring.open` reads both forms and `holdfast secrets rewrap` moves it under the current
 * master key like any other.
 */
export const SEALED_TO_PREFIX = 'x25519:';

const PURPOSE = 'holdfast.webhook-seal';
// DER prefixes of a raw 32-byte X25519 key in PKCS#8 and SPKI.
const PKCS8 = Buffer.from('302e020100300506032b656e04220420', 'hex');
const SPKI = Buffer.from('302a300506032b656e032100', 'hex');

/** Anything that seals a secret for storage: a master keyring, or a `WebhookSealKey`. */
export interface SecretSealer {
  seal(plaintext: string, context: string): SealedSecret;
}

/** The X25519 private key a master key derives for sealed-to secrets. */
export function sealPrivateKey(master: Buffer): KeyObject {
  const raw = Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), PURPOSE, 32));
  return createPrivateKey({ key: Buffer.concat([PKCS8, raw]), format: 'der', type: 'pkcs8' });
}

const rawPublic = (k: KeyObject): Buffer =>
  (createPublicKey(k).export({ format: 'der', type: 'spki' }) as Buffer).subarray(SPKI.length);
const publicKeyOf = (raw: Buffer): KeyObject =>
  createPublicKey({ key: Buffer.concat([SPKI, raw]), format: 'der', type: 'spki' });

function wrapKey(shared: Buffer, ephemeral: Buffer, recipient: Buffer): Buffer {
  return Buffer.from(
    hkdfSync('sha256', shared, Buffer.concat([ephemeral, recipient]), `${PURPOSE}.wrap`, 32),
  );
}

/** The `HOLDFAST_WEBHOOK_SEAL_KEY` value of a master key: `<id>:<base64 of the raw X25519 public key>`. */
export function sealPublicKeySetting(masterKeyId: string, master: Buffer): string {
  return `${masterKeyId}:${rawPublic(sealPrivateKey(master)).toString('base64')}`;
}

/**
 * Unwraps the data key of a sealed-to secret with the master key it was sealed to (`SecretsKeyring`
 * calls it); throws when it does not open.
 */
export function unwrapSealedTo(master: Buffer, s: SealedSecret): Buffer {
  const priv = sealPrivateKey(master);
  const ephemeral = s.wrappedKey.subarray(0, 32);
  const shared = diffieHellman({ privateKey: priv, publicKey: publicKeyOf(ephemeral) });
  return gcmOpen(
    wrapKey(shared, ephemeral, rawPublic(priv)),
    s.wrappedKey.subarray(32),
    `holdfast.dek/${s.keyId}`,
  );
}

/**
 * A public key to seal webhook secrets to (the gateway's `HOLDFAST_WEBHOOK_SEAL_KEY`). It seals; it
 * cannot open anything, not even what it sealed.
 *
 * @example
 * const sealer = parseWebhookSealKey(process.env.HOLDFAST_WEBHOOK_SEAL_KEY!); // 'k1:base64…'
 * sealer.seal('whsec_…', secretRowId); // key_id 'x25519:k1'
 */
export class WebhookSealKey implements SecretSealer {
  private readonly recipient: KeyObject;

  constructor(
    readonly masterKeyId: string,
    private readonly publicKey: Buffer,
  ) {
    this.recipient = publicKeyOf(publicKey);
  }

  seal(plaintext: string, context: string): SealedSecret {
    const keyId = `${SEALED_TO_PREFIX}${this.masterKeyId}`;
    const eph = generateKeyPairSync('x25519');
    const ephemeral = rawPublic(eph.privateKey);
    const shared = diffieHellman({ privateKey: eph.privateKey, publicKey: this.recipient });
    const dataKey = randomBytes(32);
    const wrapped = gcmSeal(wrapKey(shared, ephemeral, this.publicKey), dataKey, `holdfast.dek/${keyId}`);
    return {
      keyId,
      wrappedKey: Buffer.concat([ephemeral, wrapped]),
      ciphertext: gcmSeal(dataKey, Buffer.from(plaintext, 'utf8'), context),
    };
  }
}

/** Parses `HOLDFAST_WEBHOOK_SEAL_KEY` (`<master key id>:<base64 of 32 bytes>`). */
export function parseWebhookSealKey(value: string): WebhookSealKey {
  const m = /^([A-Za-z0-9_.-]+):([A-Za-z0-9+/=]+)$/.exec(value.trim());
  const raw = m ? Buffer.from(m[2]!, 'base64') : Buffer.alloc(0);
  if (!m || raw.length !== 32)
    throw new ConfigError(
      'HOLDFAST_WEBHOOK_SEAL_KEY must be <master key id>:<base64 of a 32-byte X25519 public key> (holdfast secrets webhook-seal-key)',
    );
  return new WebhookSealKey(m[1]!, raw);
}
