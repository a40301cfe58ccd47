import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@holdfast/platform';

/** One configured key: its id (stored or sent beside what it sealed or signed) and 32 bytes. */
export interface NamedKey {
  readonly id: string;
  readonly key: Buffer;
}

/**
 * Parses a key-list setting (HOLDFAST_SECRETS_KEYS, HOLDFAST_UNSUBSCRIBE_KEYS, HOLDFAST_INBOUND_KEYS):
 * `id:base64,id:base64`, current first, each key exactly 32 bytes, no id twice. The keys after the
 * first are kept only to open or verify what they sealed or signed, so a key can be rotated.
 *
 * @example
 * parseKeyList('HOLDFAST_UNSUBSCRIBE_KEYS', `u2:${newKey},u1:${oldKey}`); // [{ id: 'u2', … }, { id: 'u1', … }]
 */
export function parseKeyList(setting: string, value: string): NamedKey[] {
  const keys = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry) => {
      const m = /^([A-Za-z0-9._-]{1,32}):([A-Za-z0-9+/=_-]+)$/.exec(entry);
      const key = m ? Buffer.from(m[2]!, 'base64') : Buffer.alloc(0);
      if (!m || key.length !== 32)
        throw new ConfigError(
          `invalid configuration: ${setting} must be id:base64 entries of 32-byte keys, current first`,
        );
      return { id: m[1]!, key };
    });
  if (!keys.length) throw new ConfigError(`invalid configuration: ${setting} is empty`);
  if (new Set(keys.map((k) => k.id)).size !== keys.length)
    throw new ConfigError(`invalid configuration: ${setting} has a key id twice`);
  return keys;
}

/**
 * A development key: generated once into `<HOLDFAST_CACHE or ~/.cache/holdfast>/<file>` (mode 0600)
 * and reused by every local process, like the rest of the local stack's state.
 */
function localDevelopmentKeys(
  env: Readonly<Record<string, string | undefined>>,
  setting: string,
  file: string,
): NamedKey[] {
  const dir = env.HOLDFAST_CACHE ?? join(homedir(), '.cache', 'holdfast');
  const path = join(dir, file);
  mkdirSync(dir, { recursive: true });
  try {
    writeFileSync(path, `dev-${randomBytes(3).toString('hex')}:${randomBytes(32).toString('base64')}\n`, {
      flag: 'wx',
      mode: 0o600,
    });
  } catch (err) {
    if ((err as { code?: string }).code !== 'EEXIST') throw err;
  }
  return parseKeyList(setting, readFileSync(path, 'utf8'));
}

/**
 * The keys of `setting`, or of the file named by `<setting>_FILE` (a container secret mounted as a
 * file, as docker-compose.yml does; the setting itself wins when both are set). Without either: in
 * production (NODE_ENV=production) a ConfigError, so a service never starts with a made-up key;
 * elsewhere the local development key in the cache file `devFile`.
 *
 * @example
 * loadKeyList(process.env, 'HOLDFAST_INBOUND_KEYS', 'inbound-key');
 */
export function loadKeyList(
  env: Readonly<Record<string, string | undefined>>,
  setting: string,
  devFile: string,
): NamedKey[] {
  const value = env[setting];
  if (value) return parseKeyList(setting, value);
  const file = env[`${setting}_FILE`];
  if (file) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      throw new ConfigError(
        `invalid configuration: ${setting}_FILE: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
      );
    }
    return parseKeyList(`${setting}_FILE`, text);
  }
  if (env.NODE_ENV === 'production')
    throw new ConfigError(`invalid configuration: ${setting} is required in production`);
  return localDevelopmentKeys(env, setting, devFile);
}
