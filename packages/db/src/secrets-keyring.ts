import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@holdfast/platform';

/** A master key: its id (stored beside every data key it wraps) and 32 bytes of AES-256 key. */
export interface MasterKey {
  readonly id: string;
  readonly key: Buffer;
}

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

function gcmSeal(key: Buffer, plain: Buffer, aad: string): Buffer {
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', key, iv);
  c.setAAD(Buffer.from(aad, 'utf8'));
  const ct = Buffer.concat([c.update(plain), c.final()]);
  return Buffer.concat([iv, c.getAuthTag(), ct]);
}

function gcmOpen(key: Buffer, sealed: Buffer, aad: string): Buffer {
  const d = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, 12));
  d.setAAD(Buffer.from(aad, 'utf8'));
  d.setAuthTag(sealed.subarray(12, 28));
  return Buffer.concat([d.update(sealed.subarray(28)), d.final()]);
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

  /** `variable` names the key list in errors (HOLDFAST_PRIVACY_KEYS for the privacy KEK ring). */
  constructor(
    keys: readonly MasterKey[],
    private readonly variable = 'HOLDFAST_SECRETS_KEYS',
  ) {
    if (!keys.length) throw new ConfigError('a secrets keyring needs at least one master key');
    this.byId = new Map(keys.map((k) => [k.id, k.key]));
    this.currentKeyId = keys[0]!.id;
  }

  /** Whether the keyring holds master key `keyId`. */
  has(keyId: string): boolean {
    return this.byId.has(keyId);
  }

  /**
   * A key for one purpose (e.g. signing unsubscribe links), derived from master key `keyId` (default:
   * the current one) with HKDF-SHA256, so no second secret has to be configured and a derived key
   * reveals nothing about the master key. Keys derived from an older master key stay derivable while
   * it is configured, so links signed before a key rotation keep working until it is removed.
   */
  deriveKey(purpose: string, keyId: string = this.currentKeyId): { keyId: string; key: Buffer } {
    const master = this.byId.get(keyId);
    if (!master) throw new SecretUnreadableError(`no master key "${keyId}" in ${this.variable}`);
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
    const master = this.byId.get(s.keyId);
    if (!master) throw new SecretUnreadableError(`no master key "${s.keyId}" in ${this.variable}`);
    try {
      return gcmOpen(master, s.wrappedKey, `holdfast.dek/${s.keyId}`);
    } catch {
      throw new SecretUnreadableError(`the data key does not open with master key "${s.keyId}"`);
    }
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
 * Parses a key list such as HOLDFAST_SECRETS_KEYS: `id:base64,id:base64`, current first; each key
 * exactly 32 bytes. `variable` names the setting in the errors.
 *
 * @example
 * parseKeyList('HOLDFAST_PRIVACY_KEYS', `k1:${randomBytes(32).toString('base64')}`);
 */
export function parseKeyList(variable: string, value: string): MasterKey[] {
  const keys = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry) => {
      const m = /^([A-Za-z0-9._-]{1,32}):([A-Za-z0-9+/=_-]+)$/.exec(entry);
      const key = m ? Buffer.from(m[2]!, 'base64') : Buffer.alloc(0);
      if (!m || key.length !== 32)
        throw new ConfigError(
          `invalid configuration: ${variable} must be id:base64 entries of 32-byte keys, current first`,
        );
      return { id: m[1]!, key };
    });
  if (!keys.length) throw new ConfigError(`invalid configuration: ${variable} is empty`);
  if (new Set(keys.map((k) => k.id)).size !== keys.length)
    throw new ConfigError(`invalid configuration: ${variable} has a key id twice`);
  return keys;
}

/** Parses HOLDFAST_SECRETS_KEYS (see parseKeyList). */
export function parseSecretsKeys(value: string): MasterKey[] {
  return parseKeyList('HOLDFAST_SECRETS_KEYS', value);
}

/** Where a key list is read from, and the file its development key is generated into. */
export interface KeyListSource {
  /** The environment variable, e.g. `HOLDFAST_SECRETS_KEYS`. */
  readonly variable: string;
  /** The development key's file name under `<HOLDFAST_CACHE or ~/.cache/holdfast>`. */
  readonly devFile: string;
}

export const SECRETS_KEYS: KeyListSource = { variable: 'HOLDFAST_SECRETS_KEYS', devFile: 'secrets-key' };

/**
 * The development key: generated once into `<HOLDFAST_CACHE or ~/.cache/holdfast>/<devFile>`
 * (mode 0600) and reused by every local process, like the rest of the local stack's state.
 */
function localDevelopmentKeys(
  source: KeyListSource,
  env: Readonly<Record<string, string | undefined>>,
): MasterKey[] {
  const dir = env.HOLDFAST_CACHE ?? join(homedir(), '.cache', 'holdfast');
  const file = join(dir, source.devFile);
  mkdirSync(dir, { recursive: true });
  try {
    writeFileSync(file, `dev-${randomBytes(3).toString('hex')}:${randomBytes(32).toString('base64')}\n`, {
      flag: 'wx',
      mode: 0o600,
    });
  } catch (err) {
    if ((err as { code?: string }).code !== 'EEXIST') throw err;
  }
  return parseKeyList(source.variable, readFileSync(file, 'utf8'));
}

/**
 * A key list from the environment. Without it: in production (NODE_ENV=production) a ConfigError,
 * so a service never starts with a made-up key; elsewhere the local development key.
 */
export function loadKeyList(
  source: KeyListSource,
  env: Readonly<Record<string, string | undefined>>,
): MasterKey[] {
  const value = env[source.variable];
  if (value) return parseKeyList(source.variable, value);
  if (env.NODE_ENV === 'production')
    throw new ConfigError(`invalid configuration: ${source.variable} is required in production`);
  return localDevelopmentKeys(source, env);
}

/** The keyring from HOLDFAST_SECRETS_KEYS (see loadKeyList). */
export function loadSecretsKeyring(env: Readonly<Record<string, string | undefined>>): SecretsKeyring {
  return new SecretsKeyring(loadKeyList(SECRETS_KEYS, env));
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
