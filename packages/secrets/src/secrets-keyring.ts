import { hkdfSync, randomBytes } from 'node:crypto';
import { gcmOpen, gcmSeal } from './aes-gcm.js';
import { ConfigError } from '@holdfast/platform';
import { SEALED_TO_PREFIX, sealPublicKeySetting, unwrapSealedTo } from './webhook-seal.js';
import { loadKeyList, parseKeyList, type NamedKey } from './key-list.js';

/** A master key: its id (stored beside every data key it wraps) and 32 bytes of AES-256 key. */
export type MasterKey = NamedKey;

const SECRETS_SETTING = 'HOLDFAST_SECRETS_KEYS';

/**
 * A secret at rest (envelope encryption): a fresh data key per secret encrypts the secret, and the
 * master key `keyId` encrypts the data key. Both with AES-256-GCM, stored as iv (12) | tag (16) | ct.
 */
export interface SealedSecret {
  readonly keyId: string;
  readonly wrappedKey: Buffer;
  readonly ciphertext: Buffer;
}

/** A sealed secret could not be opened: unknown master key id, or tampered/mismatched ciphertext. */
export class SecretUnreadableError extends Error {
  override readonly name = 'SecretUnreadableError';
  readonly isRetriable = false;
}

/**
 * The master keys secrets at rest are sealed with. The first key is current: new secrets are sealed
 * with it and `rewrap` moves older data keys onto it; the others are kept only to open what they
 * sealed until a rewrap has run.
 *
 * @example
 * const keyring = new SecretsKeyring(parseSecretsKeys('k2:' + k2b64 + ',k1:' + k1b64));
 * const sealed = keyring.seal('whsec_…', subscriptionSecretId);
 * keyring.open(sealed, subscriptionSecretId); // 'whsec_…'
 */
export class SecretsKeyring {
  private readonly byId: ReadonlyMap<string, Buffer>;
  readonly currentKeyId: string;

  /** `setting`: where the keys come from, named in the errors. */
  constructor(
    keys: readonly MasterKey[],
    readonly setting: string = SECRETS_SETTING,
  ) {
    if (!keys.length) throw new ConfigError('a secrets keyring needs at least one master key');
    this.byId = new Map(keys.map((k) => [k.id, k.key]));
    this.currentKeyId = keys[0]!.id;
  }

  /** The ids of the keys held, current first. */
  get keyIds(): string[] {
    return [...this.byId.keys()];
  }

  /** Whether the keyring holds master key `keyId` (or the one an `x25519:` key id was sealed to). */
  has(keyId: string): boolean {
    return this.byId.has(keyId.startsWith(SEALED_TO_PREFIX) ? keyId.slice(SEALED_TO_PREFIX.length) : keyId);
  }

  /**
   * A key for one purpose, derived from master key `keyId` (default: the current one) with
   * HKDF-SHA256: a derived key reveals nothing about the master key. Unsubscribe links were signed
   * with `deriveKey('unsubscribe-token')` before they had a key of their own (HOLDFAST_UNSUBSCRIBE_KEYS);
   * `holdfast secrets legacy-unsubscribe-keys` exports those derived keys so such links keep verifying.
   */
  deriveKey(purpose: string, keyId: string = this.currentKeyId): { keyId: string; key: Buffer } {
    const master = this.byId.get(keyId);
    if (!master) throw new SecretUnreadableError(`no master key "${keyId}" in ${this.setting}`);
    return {
      keyId,
      key: Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), `holdfast.${purpose}`, 32)),
    };
  }

  /** Seals `plaintext`; `context` (the row id) is authenticated, so a ciphertext moved to another row fails. */
  seal(plaintext: string, context: string): SealedSecret {
    const dataKey = randomBytes(32);
    const master = this.byId.get(this.currentKeyId)!;
    return {
      keyId: this.currentKeyId,
      wrappedKey: gcmSeal(master, dataKey, `holdfast.dek/${this.currentKeyId}`),
      ciphertext: gcmSeal(dataKey, Buffer.from(plaintext, 'utf8'), context),
    };
  }

  private unwrap(s: SealedSecret): Buffer {
    // `x25519:<id>`: sealed to master key <id>'s public key (webhook-seal.ts), by the gateway.
    const sealedTo = s.keyId.startsWith(SEALED_TO_PREFIX);
    const masterId = sealedTo ? s.keyId.slice(SEALED_TO_PREFIX.length) : s.keyId;
    const master = this.byId.get(masterId);
    if (!master) throw new SecretUnreadableError(`no master key "${masterId}" in ${this.setting}`);
    try {
      return sealedTo ? unwrapSealedTo(master, s) : gcmOpen(master, s.wrappedKey, `holdfast.dek/${s.keyId}`);
    } catch {
      throw new SecretUnreadableError(`the data key does not open with master key "${masterId}"`);
    }
  }

  /**
   * The `HOLDFAST_WEBHOOK_SEAL_KEY` of master key `keyId` (default: the current one): the public key
   * the gateway seals the webhook secrets it mints to (webhook-seal.ts).
   */
  webhookSealKeySetting(keyId: string = this.currentKeyId): string {
    const master = this.byId.get(keyId);
    if (!master) throw new SecretUnreadableError(`no master key "${keyId}" in ${this.setting}`);
    return sealPublicKeySetting(keyId, master);
  }

  /** Opens a sealed secret (the same `context` it was sealed with). */
  open(s: SealedSecret, context: string): string {
    const dataKey = this.unwrap(s);
    try {
      return gcmOpen(dataKey, s.ciphertext, context).toString('utf8');
    } catch {
      throw new SecretUnreadableError('the secret does not open with its data key');
    }
  }

  /** The same secret with its data key wrapped by the current master key (the ciphertext is unchanged). */
  rewrap(s: SealedSecret): SealedSecret {
    if (s.keyId === this.currentKeyId) return s;
    const dataKey = this.unwrap(s);
    const master = this.byId.get(this.currentKeyId)!;
    return {
      keyId: this.currentKeyId,
      wrappedKey: gcmSeal(master, dataKey, `holdfast.dek/${this.currentKeyId}`),
      ciphertext: s.ciphertext,
    };
  }
}

/**
 * Parses HOLDFAST_SECRETS_KEYS: `id:base64,id:base64`, current first; each key exactly 32 bytes.
 *
 * @example
 * parseSecretsKeys(`k1:${randomBytes(32).toString('base64')}`);
 */
export function parseSecretsKeys(value: string): MasterKey[] {
  return parseKeyList(SECRETS_SETTING, value);
}

/**
 * The keyring from HOLDFAST_SECRETS_KEYS. Without it: in production (NODE_ENV=production) a
 * ConfigError, so a service never starts with a made-up key; elsewhere the local development key
 * (`~/.cache/holdfast/secrets-key`).
 */
export function loadSecretsKeyring(env: Readonly<Record<string, string | undefined>>): SecretsKeyring {
  return new SecretsKeyring(loadKeyList(env, SECRETS_SETTING, 'secrets-key'));
}

let ambient: SecretsKeyring | undefined;

/**
 * The keyring of this process's environment, loaded once on first use: the default for code embedded
 * in-process (tests, the CLI). Service entry points load theirs with their configuration instead.
 */
export function defaultSecretsKeyring(): SecretsKeyring {
  ambient ??= loadSecretsKeyring(process.env);
  return ambient;
}

const INBOUND_SETTING = 'HOLDFAST_INBOUND_KEYS';

/**
 * The keys that seal the one secret the public gateway may open: each SMS provider's auth token, kept
 * a second time apart from the provider's other secrets (control.provider_inbound_secrets) so the
 * inbound STOP webhook can check the provider's signature without the master keys. Same envelope
 * encryption and rotation as the master keys (`rewrap`); a distinct class so the master keyring is
 * never passed where the inbound one is expected.
 *
 * @example
 * const inbound = loadInboundKeyring(process.env); // HOLDFAST_INBOUND_KEYS
 */
export class InboundKeyring extends SecretsKeyring {
  /** Tells the two keyrings apart for the type checker (a master keyring has no `seals`). */
  readonly seals = 'sms-inbound-token' as const;

  constructor(keys: readonly NamedKey[]) {
    super(keys, INBOUND_SETTING);
  }
}

/**
 * The inbound keyring from HOLDFAST_INBOUND_KEYS (`id:base64-of-32-bytes`, comma-separated, current
 * first). Required in production; elsewhere generated once into `~/.cache/holdfast/inbound-key`.
 */
export function loadInboundKeyring(env: Readonly<Record<string, string | undefined>>): InboundKeyring {
  return new InboundKeyring(loadKeyList(env, INBOUND_SETTING, 'inbound-key'));
}

let ambientInbound: InboundKeyring | undefined;

/** The inbound keyring of this process's environment, loaded once (tests and the CLI embed it). */
export function defaultInboundKeyring(): InboundKeyring {
  ambientInbound ??= loadInboundKeyring(process.env);
  return ambientInbound;
}

const CONSOLE_SETTING = 'HOLDFAST_CONSOLE_KEYS';

/**
 * The console's own keys: they seal its people's TOTP secrets at rest (control.users), so a copy of
 * the table without them holds no second factor. Same envelope encryption and rotation as the master
 * keys (`rewrap`); a class of its own so no other keyring is passed where this one is expected, and
 * the console never holds a master key.
 */
export class ConsoleKeyring extends SecretsKeyring {
  /** Tells the keyrings apart for the type checker. */
  readonly seals = 'console-totp' as const;

  constructor(keys: readonly NamedKey[]) {
    super(keys, CONSOLE_SETTING);
  }
}

/**
 * The console keyring from HOLDFAST_CONSOLE_KEYS (`id:base64-of-32-bytes`, comma-separated, current
 * first; or HOLDFAST_CONSOLE_KEYS_FILE). Required in production; elsewhere generated once into
 * `~/.cache/holdfast/console-key`.
 */
export function loadConsoleKeyring(env: Readonly<Record<string, string | undefined>>): ConsoleKeyring {
  return new ConsoleKeyring(loadKeyList(env, CONSOLE_SETTING, 'console-key'));
}
