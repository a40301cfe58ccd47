import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadKeyList } from './key-list.js';

const entry = (id: string) => `${id}:${randomBytes(32).toString('base64')}`;

describe('loadKeyList: a key list from a secret file (<SETTING>_FILE)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hf-keys-'));

  it('given only the file (a mounted container secret, trailing newline), when loaded in production, then its keys, current first', () => {
    const file = join(dir, 'privacy_keys');
    writeFileSync(file, `${entry('p2')},${entry('p1')}\n`);
    const keys = loadKeyList(
      { NODE_ENV: 'production', HOLDFAST_PRIVACY_KEYS_FILE: file },
      'HOLDFAST_PRIVACY_KEYS',
      'privacy-key',
    );
    expect(keys.map((k) => k.id)).toEqual(['p2', 'p1']);
    expect(keys[0]!.key).toHaveLength(32);
  });

  it('given the setting and the file, then the setting wins', () => {
    const file = join(dir, 'other');
    writeFileSync(file, entry('from-file'));
    const keys = loadKeyList(
      { HOLDFAST_PRIVACY_KEYS: entry('from-env'), HOLDFAST_PRIVACY_KEYS_FILE: file },
      'HOLDFAST_PRIVACY_KEYS',
      'privacy-key',
    );
    expect(keys.map((k) => k.id)).toEqual(['from-env']);
  });

  it('given a missing or malformed file, then a configuration error naming the setting, never the contents', () => {
    expect(() =>
      loadKeyList({ HOLDFAST_INBOUND_KEYS_FILE: join(dir, 'nope') }, 'HOLDFAST_INBOUND_KEYS', 'inbound-key'),
    ).toThrow(/HOLDFAST_INBOUND_KEYS_FILE: cannot read .*nope \(ENOENT\)/);
    const bad = join(dir, 'bad');
    writeFileSync(bad, 'k1:c2hvcnQ=');
    expect(() =>
      loadKeyList({ HOLDFAST_INBOUND_KEYS_FILE: bad }, 'HOLDFAST_INBOUND_KEYS', 'inbound-key'),
    ).toThrow('HOLDFAST_INBOUND_KEYS_FILE must be id:base64 entries of 32-byte keys');
  });
});
