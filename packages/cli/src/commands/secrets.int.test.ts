import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createAccount,
  createWebhookSubscription,
  loadSmsInboundToken,
  setSmsProvider,
} from '@holdfast/control-plane';
import {
  InboundKeyring,
  loadInboundKeyring,
  loadSecretsKeyring,
  SecretsKeyring,
  parseSecretsKeys,
  parseWebhookSealKey,
  parseUnsubscribeKeys,
  signUnsubscribeToken,
  UnsubscribeKeys,
  verifyUnsubscribeToken,
} from '@holdfast/secrets';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import { runCaptured } from '../testing/capture.js';

let t: TestEnv;
beforeAll(async () => (t = await createTestEnv('cli-secrets')));
afterAll(() => t.close());

const key = (id: string): string => `${id}:${randomBytes(32).toString('base64')}`;

describe('holdfast secrets: master key rotation', () => {
  it('seals legacy plain-text secrets and re-wraps every data key under the new master key', async () => {
    const k1 = key('k1');
    const k2 = key('k2');
    const { id: account } = await createAccount(t.db, { name: 's1' });
    const a = await createWebhookSubscription(
      t.db,
      account,
      'https://a.example.com/h',
      new SecretsKeyring(parseSecretsKeys(k1)),
    );
    // A subscription from before secrets were sealed: the secret in clear in the old column.
    const legacyId = randomUUID();
    const legacySecret = 'whsec_LegacyLegacyLegacyLegacyLegacyLe';
    await t.db
      .insertInto('control.webhook_subscriptions')
      .values({ id: legacyId, account_id: account, url: 'https://b.example.com/h', secret: legacySecret })
      .execute();

    const env1 = { ...t.env, HOLDFAST_SECRETS_KEYS: k1 };
    const before = await runCaptured(['secrets', 'status', '--json'], env1);
    expect(before.json()).toMatchObject({ current_key_id: 'k1', plaintext: 1 });
    expect(before.json<{ keys: { key_id: string; secrets: number }[] }>().keys).toContainEqual({
      key_id: 'k1',
      secrets: 1,
    });

    // Rotation: the new key first, the old one kept until the rewrap has run.
    const env21 = { ...t.env, HOLDFAST_SECRETS_KEYS: `${k2},${k1}` };
    const r = await runCaptured(['secrets', 'rewrap', '--json'], env21);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ current_key_id: 'k2', sealed: 1, rewrapped: 1 });
    const again = await runCaptured(['secrets', 'rewrap', '--json'], env21);
    expect(again.json()).toMatchObject({ current_key_id: 'k2', sealed: 0, rewrapped: 0 });

    // Now k2 alone opens both; k1 alone opens neither.
    const rows = await t.db
      .selectFrom('control.webhook_secrets')
      .selectAll()
      .where('subscription_id', 'in', [a.id, legacyId])
      .execute();
    const only2 = loadSecretsKeyring({ HOLDFAST_SECRETS_KEYS: k2 });
    const only1 = loadSecretsKeyring({ HOLDFAST_SECRETS_KEYS: k1 });
    const open = (k: SecretsKeyring) => (x: (typeof rows)[number]) =>
      k.open({ keyId: x.key_id, wrappedKey: x.wrapped_key, ciphertext: x.ciphertext }, x.id);
    expect(rows.map(open(only2)).sort()).toEqual([a.secret, legacySecret].sort());
    for (const x of rows) expect(() => open(only1)(x)).toThrow('no master key "k2" in HOLDFAST_SECRETS_KEYS');
    const legacyRow = await t.db
      .selectFrom('control.webhook_subscriptions')
      .select('secret')
      .where('id', '=', legacyId)
      .executeTakeFirstOrThrow();
    expect(legacyRow.secret).toBeNull();

    // Forgetting the old key before the rewrap is refused with the fix, and changes nothing.
    const b = await createWebhookSubscription(
      t.db,
      account,
      'https://c.example.com/h',
      new SecretsKeyring(parseSecretsKeys(k1)),
    );
    const k3 = key('k3');
    const bad = await runCaptured(['secrets', 'rewrap'], { ...t.env, HOLDFAST_SECRETS_KEYS: k3 });
    expect([bad.code, bad.stderr]).toEqual([
      2,
      'holdfast: no master key "k1", "k2" in HOLDFAST_SECRETS_KEYS: put every key still in use in HOLDFAST_SECRETS_KEYS (the new one first) and run again\n',
    ]);
    const bRow = await t.db
      .selectFrom('control.webhook_secrets')
      .select('key_id')
      .where('subscription_id', '=', b.id)
      .executeTakeFirstOrThrow();
    expect(bRow.key_id).toBe('k1');

    const malformed = await runCaptured(['secrets', 'status'], {
      ...t.env,
      HOLDFAST_SECRETS_KEYS: 'k1:short',
    });
    expect([malformed.code, malformed.stderr]).toEqual([
      2,
      'holdfast: invalid configuration: HOLDFAST_SECRETS_KEYS must be id:base64 entries of 32-byte keys, current first\n',
    ]);
  });
});

describe("holdfast secrets: the gateway's own keys", () => {
  // A database of its own: `rewrap` touches every secret, and the rotation above left other keys.
  let t: TestEnv;
  beforeAll(async () => (t = await createTestEnv('cli-secrets-edge')));
  afterAll(() => t.close());

  const twilio = {
    provider: 'twilio',
    baseUrl: 'https://api.twilio.com',
    accountSid: 'AC1',
    from: '+15550100000',
  };

  it('given an SMS provider connected before the inbound copy existed, when `secrets rewrap` runs, then its token is sealed under HOLDFAST_INBOUND_KEYS once; a rotated inbound key re-wraps it', async () => {
    const k1 = key('k1');
    const i1 = key('i1');
    const i2 = key('i2');
    const master = new SecretsKeyring(parseSecretsKeys(k1));
    const { id: account } = await createAccount(t.db, { name: 'sms-old' });
    await setSmsProvider(
      t.db,
      account,
      twilio,
      'old-auth-token',
      master,
      new InboundKeyring(parseSecretsKeys(i1)),
    );
    // As a release without the inbound table left it: the master-key-sealed secret only.
    await t.db.deleteFrom('control.provider_inbound_secrets').where('account_id', '=', account).execute();
    expect(
      await loadSmsInboundToken(t.db, account, loadInboundKeyring({ HOLDFAST_INBOUND_KEYS: i1 })),
    ).toEqual({
      status: 'not_sealed',
      provider: 'twilio',
    });

    const env = { ...t.env, HOLDFAST_SECRETS_KEYS: k1, HOLDFAST_INBOUND_KEYS: i1 };
    const r = await runCaptured(['secrets', 'rewrap', '--json'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ inbound: { current_key_id: 'i1', sealed: 1, rewrapped: 0 } });
    expect(
      await loadSmsInboundToken(t.db, account, loadInboundKeyring({ HOLDFAST_INBOUND_KEYS: i1 })),
    ).toEqual({
      status: 'found',
      provider: 'twilio',
      token: 'old-auth-token',
    });
    const again = await runCaptured(['secrets', 'rewrap', '--json'], env);
    expect(again.json()).toMatchObject({ inbound: { sealed: 0, rewrapped: 0 } });

    // Rotation of the inbound key: new first, old kept until the rewrap ran; then the new alone opens it.
    const rotated = await runCaptured(['secrets', 'rewrap', '--json'], {
      ...env,
      HOLDFAST_INBOUND_KEYS: `${i2},${i1}`,
    });
    expect(rotated.json<{ inbound: { rewrapped: number } }>().inbound.rewrapped).toBeGreaterThanOrEqual(1);
    expect(
      await loadSmsInboundToken(t.db, account, loadInboundKeyring({ HOLDFAST_INBOUND_KEYS: i2 })),
    ).toMatchObject({
      status: 'found',
      token: 'old-auth-token',
    });
    await expect(
      loadSmsInboundToken(t.db, account, loadInboundKeyring({ HOLDFAST_INBOUND_KEYS: i1 })),
    ).rejects.toThrow('no master key "i2" in HOLDFAST_INBOUND_KEYS');
  });

  it('given `providers set-sms`, then the token is sealed for the gateway too; without HOLDFAST_INBOUND_KEYS in production it is refused', async () => {
    const { id: account } = await createAccount(t.db, { name: 'sms-new' });
    const file = join(mkdtempSync(join(tmpdir(), 'hf-sms-')), 'token');
    writeFileSync(file, 'new-auth-token\n');
    const args = [
      'providers',
      'set-sms',
      '--account',
      account,
      '--account-sid',
      'AC1',
      '--auth-token-file',
      file,
      '--from',
      '+15550100000',
    ];
    const ok = await runCaptured(args, t.env);
    expect(ok.code, ok.stderr).toBe(0);
    expect(await loadSmsInboundToken(t.db, account, loadInboundKeyring(t.env))).toMatchObject({
      status: 'found',
      token: 'new-auth-token',
    });
    const { HOLDFAST_INBOUND_KEYS: _, ...without } = t.env;
    const refused = await runCaptured(args, { ...without, NODE_ENV: 'production' });
    expect([refused.code, refused.stderr]).toEqual([
      2,
      'holdfast: invalid configuration: HOLDFAST_INBOUND_KEYS is required in production\n',
    ]);
  });

  it('given `legacy-unsubscribe-keys` appended to HOLDFAST_UNSUBSCRIBE_KEYS, then links signed before the upgrade verify without the master key', async () => {
    const k1 = key('k1');
    const master = new SecretsKeyring(parseSecretsKeys(k1));
    const subject = { accountId: randomUUID(), customerId: randomUUID(), channel: 'email' as const };
    // What the previous release put in emails: a MAC under HKDF(k1, "holdfast.unsubscribe-token").
    const old = signUnsubscribeToken(
      new UnsubscribeKeys([{ id: 'k1', key: master.deriveKey('unsubscribe-token').key }]),
      subject,
    );
    const r = await runCaptured(['secrets', 'legacy-unsubscribe-keys', '--json'], {
      ...t.env,
      HOLDFAST_SECRETS_KEYS: k1,
    });
    expect(r.code, r.stderr).toBe(0);
    const { entries } = r.json<{ entries: string[] }>();
    expect(entries).toHaveLength(1);
    expect(entries[0]).not.toBe(k1);
    const gateway = new UnsubscribeKeys(parseUnsubscribeKeys(`${key('u1')},${entries.join(',')}`));
    expect(verifyUnsubscribeToken(gateway, old)).toEqual(subject);
    expect(verifyUnsubscribeToken(new UnsubscribeKeys(parseUnsubscribeKeys(key('u1'))), old)).toBeNull();
  });

  it('given `webhook-seal-key` on the gateway, then the secrets it seals open with the master key only', async () => {
    const k1 = key('k1');
    const r = await runCaptured(['secrets', 'webhook-seal-key', '--json'], {
      ...t.env,
      HOLDFAST_SECRETS_KEYS: k1,
    });
    expect(r.code, r.stderr).toBe(0);
    const { setting } = r.json<{ setting: string }>();
    expect(setting).toMatch(/^k1:[A-Za-z0-9+/]{43}=$/);
    expect(setting).not.toContain(k1.split(':')[1]);
    const sealed = parseWebhookSealKey(setting).seal('whsec_x', 'row');
    expect(new SecretsKeyring(parseSecretsKeys(k1)).open(sealed, 'row')).toBe('whsec_x');
    expect(() => new SecretsKeyring(parseSecretsKeys(key('k1'))).open(sealed, 'row')).toThrow();
  });
});
