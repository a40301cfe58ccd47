import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createAccount,
  createWebhookSubscription,
  loadSecretsKeyring,
  SecretsKeyring,
  parseSecretsKeys,
} from '@holdfast/db';
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
    expect(r.json()).toEqual({ current_key_id: 'k2', sealed: 1, rewrapped: 1 });
    const again = await runCaptured(['secrets', 'rewrap', '--json'], env21);
    expect(again.json()).toEqual({ current_key_id: 'k2', sealed: 0, rewrapped: 0 });

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
      'holdfast: no master key "k1", "k2" in HOLDFAST_SECRETS_KEYS: put every master key still in use in HOLDFAST_SECRETS_KEYS (the new one first) and run again\n',
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
