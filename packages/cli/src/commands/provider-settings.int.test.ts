import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, loadProviderConnections } from '@holdfast/control-plane';
import { parseSecretsKeys, SecretsKeyring } from '@holdfast/secrets';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import { runCaptured } from '../testing/capture.js';

let t: TestEnv;
let dir: string;
const KEYS = `k1:${randomBytes(32).toString('base64')}`;
beforeAll(async () => {
  t = await createTestEnv('cli-providers');
  dir = mkdtempSync(join(tmpdir(), 'hf-prov-'));
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await t.close();
});

describe('holdfast providers set-email / set-sms', () => {
  it('stores SMTP and SMS credentials sealed, lists the providers, and opens the secrets for a send', async () => {
    const env = { ...t.env, HOLDFAST_SECRETS_KEYS: KEYS };
    const { id: account } = await createAccount(t.db, { name: 'prov' });
    const password = 'smtp-password-never-in-clear';
    const token = 'twilio-auth-token-never-in-clear';
    writeFileSync(join(dir, 'pw'), `${password}\n`);
    writeFileSync(join(dir, 'token'), token);
    const email = await runCaptured(
      [
        'providers',
        'set-email',
        '--account',
        account,
        '--host',
        'smtp.example.com',
        '--port',
        '587',
        '--user',
        'apikey',
        '--password-file',
        join(dir, 'pw'),
        '--from',
        'Shop <news@shop.example.com>',
      ],
      env,
    );
    expect([email.code, email.stdout]).toEqual([
      0,
      `Connected smtp (email over SMTP smtp.example.com:587, tls starttls) for ${account}; password sealed\n`,
    ]);
    const sms = await runCaptured(
      [
        'providers',
        'set-sms',
        '--account',
        account,
        '--account-sid',
        'AC123',
        '--auth-token-file',
        join(dir, 'token'),
        '--from',
        '+15550109999',
        '--base-url',
        'https://sms.example.com/',
      ],
      env,
    );
    expect(sms.code).toBe(0);
    const list = await runCaptured(['providers', 'list', '--account', account, '--json'], env);
    expect(list.json()).toEqual([
      {
        provider: 'smtp',
        channel: 'email',
        kind: 'smtp',
        endpoint_url: 'smtp://smtp.example.com:587',
        connected_at: expect.any(String),
      },
      {
        provider: 'twilio',
        channel: 'sms',
        kind: 'twilio',
        endpoint_url: 'https://sms.example.com',
        connected_at: expect.any(String),
      },
    ]);
    // Nothing in clear at rest.
    const { rows } = await t.pool.query<{ all: string }>(
      `select string_agg(p::text || coalesce(s::text, ''), ' ') as all
         from control.providers p left join control.provider_secrets s using (account_id, provider)
        where account_id = $1`,
      [account],
    );
    expect(rows[0]!.all).not.toContain(password);
    expect(rows[0]!.all).not.toContain(token);
    const connections = await loadProviderConnections(
      t.db,
      account,
      new SecretsKeyring(parseSecretsKeys(KEYS)),
    );
    expect(connections).toEqual([
      {
        provider: 'smtp',
        channel: 'email',
        kind: 'smtp',
        settings: {
          host: 'smtp.example.com',
          port: 587,
          user: 'apikey',
          from: 'Shop <news@shop.example.com>',
          tls: 'starttls',
          ca: null,
        },
        secret: password,
      },
      {
        provider: 'twilio',
        channel: 'sms',
        kind: 'twilio',
        settings: { baseUrl: 'https://sms.example.com', accountSid: 'AC123', from: '+15550109999' },
        secret: token,
      },
    ]);
    // A master key rotation re-wraps them too: afterwards the new key alone opens them.
    const k2 = `k2:${randomBytes(32).toString('base64')}`;
    const status = await runCaptured(['secrets', 'status', '--json'], {
      ...env,
      HOLDFAST_SECRETS_KEYS: `${k2},${KEYS}`,
    });
    expect(status.json<{ keys: unknown[] }>().keys).toContainEqual({ key_id: 'k1', secrets: 2 });
    const rewrap = await runCaptured(['secrets', 'rewrap', '--json'], {
      ...env,
      HOLDFAST_SECRETS_KEYS: `${k2},${KEYS}`,
    });
    expect(rewrap.json()).toMatchObject({ current_key_id: 'k2', rewrapped: 2 });
    expect(
      (await loadProviderConnections(t.db, account, new SecretsKeyring(parseSecretsKeys(k2)))).map((c) =>
        'secret' in c ? c.secret : null,
      ),
    ).toEqual([password, token]);
    // Another keyring cannot open them.
    await expect(
      loadProviderConnections(
        t.db,
        account,
        new SecretsKeyring(parseSecretsKeys(`k1:${randomBytes(32).toString('base64')}`)),
      ),
    ).rejects.toThrow('no master key "k2"');
  });

  it('refuses plain-text SMTP outside test mode, and a plain-http SMS base URL', async () => {
    const env = { ...t.env, HOLDFAST_SECRETS_KEYS: KEYS, HOLDFAST_TEST_MODE: '' };
    const { id: account } = await createAccount(t.db, { name: 'prov2' });
    writeFileSync(join(dir, 'pw2'), 'x');
    const plain = await runCaptured(
      [
        'providers',
        'set-email',
        '--account',
        account,
        '--host',
        'smtp.example.com',
        '--user',
        'u',
        '--password-file',
        join(dir, 'pw2'),
        '--from',
        'a@shop.example.com',
        '--tls',
        'none',
      ],
      env,
    );
    expect([plain.code, plain.stderr]).toEqual([
      2,
      'holdfast: --tls none sends the SMTP password and messages in clear: only with HOLDFAST_TEST_MODE=1\n',
    ]);
    const http = await runCaptured(
      [
        'providers',
        'set-sms',
        '--account',
        account,
        '--account-sid',
        'AC1',
        '--auth-token-file',
        join(dir, 'pw2'),
        '--from',
        '+1555',
        '--base-url',
        'http://sms.example.com',
      ],
      { ...env, HOLDFAST_OUTBOUND_ALLOW_HTTP: '' },
    );
    expect(http.code).not.toBe(0);
    expect(http.stderr).toContain('only https:// URLs are allowed');
  });
});
