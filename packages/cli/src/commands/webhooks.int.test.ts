import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHmac } from 'node:crypto';
import { createAccount } from '@holdfast/control-plane';
import { defaultSecretsKeyring, loadSecretsKeyring } from '@holdfast/secrets';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import { runCaptured } from '../testing/capture.js';

let t: TestEnv;
beforeAll(async () => (t = await createTestEnv('cli-webhooks')));
afterAll(() => t.close());

describe('holdfast webhooks', () => {
  it('subscribes with a whsec_ secret shown once, lists without it, removes', async () => {
    const { id: account } = await createAccount(t.db, { name: 'w1' });
    const r = await runCaptured(
      ['webhooks', 'subscribe', '--account', account, '--url', 'https://hooks.example.com/hf'],
      t.env,
    );
    expect(r.code).toBe(0);
    const [, id, secret] =
      /^Subscribed https:\/\/hooks\.example\.com\/hf \(subscription (\S+)\)\nSigning secret \(shown once; verify X-Service-Signature = hex HMAC-SHA256 of the body\):\n(whsec_\w{32})\n$/.exec(
        r.stdout,
      )!;
    const row = await t.db
      .selectFrom('control.webhook_subscriptions')
      .selectAll()
      .where('id', '=', id!)
      .executeTakeFirstOrThrow();
    // Stored sealed, never in clear: the plain-text column is empty, the ciphertext opens to the secret.
    expect(row).toMatchObject({ account_id: account, url: 'https://hooks.example.com/hf', secret: null });
    const sealed = await t.db
      .selectFrom('control.webhook_secrets')
      .selectAll()
      .where('subscription_id', '=', id!)
      .execute();
    expect(sealed).toHaveLength(1);
    const s0 = sealed[0]!;
    expect(s0).toMatchObject({ key_id: defaultSecretsKeyring().currentKeyId, expires_at: null });
    expect(s0.ciphertext.includes(Buffer.from(secret!.slice(6)))).toBe(false);
    expect(
      defaultSecretsKeyring().open(
        { keyId: s0.key_id, wrappedKey: s0.wrapped_key, ciphertext: s0.ciphertext },
        s0.id,
      ),
    ).toBe(secret);

    const list = await runCaptured(['webhooks', 'list', '--account', account, '--json'], t.env);
    expect(list.json()).toEqual([
      {
        id,
        url: 'https://hooks.example.com/hf',
        event_types: ['campaign.sent'],
        status: 'active',
        created_at: expect.any(String),
        removed_at: null,
      },
    ]);
    expect(list.stdout).not.toContain('whsec_');

    const removed = await runCaptured(['webhooks', 'remove', id!], t.env);
    expect([removed.code, removed.stdout]).toEqual([0, `Removed subscription ${id}\n`]);
    const after = await runCaptured(['webhooks', 'list', '--account', account], t.env);
    expect(after.stdout.split('\n')[1]).toMatch(
      new RegExp(`^${id}  removed  \\S+  campaign\\.sent  https://hooks.example.com/hf$`),
    );
    const twice = await runCaptured(['webhooks', 'remove', id!], t.env);
    expect([twice.code, twice.stderr]).toEqual([3, `holdfast: no active subscription ${id}\n`]);
  });

  it('refuses a receiver that is not an http(s) URL', async () => {
    const { id: account } = await createAccount(t.db, { name: 'w2' });
    const r = await runCaptured(
      ['webhooks', 'subscribe', '--account', account, '--url', 'ftp://x.example.com'],
      t.env,
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `error: option '--url <url>' argument 'ftp://x.example.com' is invalid. "ftp://x.example.com" must be an http:// or https:// URL.`,
    );
    const missing = await runCaptured(
      [
        'webhooks',
        'subscribe',
        '--account',
        '00000000-0000-4000-8000-000000000000',
        '--url',
        'https://x.example.com',
      ],
      t.env,
    );
    expect(missing.code).toBe(3);
  });
});

describe('holdfast webhooks: destinations and secret rotation', () => {
  const strict = (): Record<string, string> => ({
    ...t.env,
    HOLDFAST_OUTBOUND_ALLOW: '',
    HOLDFAST_OUTBOUND_ALLOW_HTTP: 'false',
  });
  const tail =
    '. Outbound calls go to public https URLs only (HOLDFAST_OUTBOUND_ALLOW and HOLDFAST_OUTBOUND_ALLOW_HTTP open local receivers in development)\n';

  it.each([
    ['http://hooks.example.com/x', 'only https:// URLs are allowed'],
    ['https://169.254.169.254/latest/meta-data', '169.254.169.254 is not a public address (link-local)'],
    ['https://127.0.0.1:8443/x', '127.0.0.1 is not a public address (loopback)'],
    ['https://10.1.2.3/x', '10.1.2.3 is not a public address (private)'],
    ['https://[fd12::1]/x', 'fd12::1 is not a public address (unique-local)'],
    ['https://localhost/x', 'localhost is not a public address (loopback)'],
  ])('refuses %s when subscribing and when connecting a provider', async (url, why) => {
    const { id: account } = await createAccount(t.db, { name: 'w-refuse' });
    const sub = await runCaptured(['webhooks', 'subscribe', '--account', account, '--url', url], strict());
    expect([sub.code, sub.stdout, sub.stderr]).toEqual([2, '', `holdfast: refusing ${url}: ${why}${tail}`]);
    const prov = await runCaptured(
      [
        'providers',
        'connect',
        '--account',
        account,
        '--provider',
        'p',
        '--channel',
        'sms',
        '--endpoint',
        url,
      ],
      strict(),
    );
    expect([prov.code, prov.stderr]).toEqual([2, `holdfast: refusing ${url}: ${why}${tail}`]);
    const rows = await t.db
      .selectFrom('control.webhook_subscriptions')
      .select('id')
      .where('account_id', '=', account)
      .execute();
    expect(rows).toEqual([]);
  });

  it('rotates a secret: shown once, sealed, the old one signing until the grace ends', async () => {
    const { id: account } = await createAccount(t.db, { name: 'w-rot' });
    const sub = await runCaptured(
      ['webhooks', 'subscribe', '--account', account, '--url', 'https://hooks.example.com/r', '--json'],
      t.env,
    );
    const { id, secret } = sub.json<{ id: string; secret: string }>();
    const r = await runCaptured(['webhooks', 'rotate-secret', id, '--grace', '1h', '--json'], t.env);
    expect(r.code, r.stderr).toBe(0);
    const rotated = r.json<{ id: string; secret: string; previous_secret_expires_at: string }>();
    expect(rotated.secret).toMatch(/^whsec_\w{32}$/);
    expect(rotated.secret).not.toBe(secret);
    expect(Date.parse(rotated.previous_secret_expires_at) - Date.now()).toBeGreaterThan(3500_000);
    const rows = await t.db
      .selectFrom('control.webhook_secrets')
      .selectAll()
      .where('subscription_id', '=', id)
      .orderBy('seq')
      .execute();
    const keyring = loadSecretsKeyring(t.env);
    expect(
      rows.map((x) => [
        keyring.open({ keyId: x.key_id, wrappedKey: x.wrapped_key, ciphertext: x.ciphertext }, x.id),
        x.expires_at?.toISOString() ?? null,
      ]),
    ).toEqual([
      [secret, rotated.previous_secret_expires_at],
      [rotated.secret, null],
    ]);
    const gone = await runCaptured(
      ['webhooks', 'rotate-secret', '00000000-0000-4000-8000-000000000000'],
      t.env,
    );
    expect([gone.code, gone.stderr]).toEqual([
      3,
      'holdfast: no active subscription 00000000-0000-4000-8000-000000000000\n',
    ]);
    // The printed secret is a Standard Webhooks secret too: whsec_ + base64 of 24 bytes.
    expect(Buffer.from(rotated.secret.slice(6), 'base64')).toHaveLength(24);
    expect(createHmac('sha256', rotated.secret).update('x').digest('hex')).toHaveLength(64);
  });

  it('says so when no dispatcher has created the delivery log yet', async () => {
    const { id: account } = await createAccount(t.db, { name: 'w-nolog' });
    const sub = await runCaptured(
      ['webhooks', 'subscribe', '--account', account, '--url', 'https://hooks.example.com/n', '--json'],
      t.env,
    );
    const { id } = sub.json<{ id: string }>();
    for (const argv of [
      ['webhooks', 'deliveries', id],
      ['webhooks', 'redeliver', id, '--all-failed'],
      ['webhooks', 'unquarantine', id],
      ['webhooks', 'quarantined'],
    ]) {
      const r = await runCaptured(argv, t.env);
      expect([r.code, r.stderr]).toEqual([
        3,
        'holdfast: no delivery log yet: no dispatcher has started against this database\n',
      ]);
    }
  });

  it('redeliver needs exactly one of --delivery and --all-failed', async () => {
    const r = await runCaptured(['webhooks', 'redeliver', '00000000-0000-4000-8000-000000000000'], t.env);
    expect([r.code, r.stderr]).toEqual([
      2,
      'holdfast: give either --delivery <delivery-id> or --all-failed\n',
    ]);
  });
});

describe('holdfast providers', () => {
  it('connects, re-points and lists providers', async () => {
    const { id: account } = await createAccount(t.db, { name: 'pr1' });
    const r = await runCaptured(
      [
        'providers',
        'connect',
        '--account',
        account,
        '--provider',
        'postmark',
        '--channel',
        'email',
        '--endpoint',
        'http://127.0.0.1:9/send',
      ],
      t.env,
    );
    expect([r.code, r.stdout]).toEqual([
      0,
      `Connected postmark (email) for ${account} -> http://127.0.0.1:9/send\n`,
    ]);
    await runCaptured(
      [
        'providers',
        'connect',
        '--account',
        account,
        '--provider',
        'twilio',
        '--channel',
        'sms',
        '--endpoint',
        'http://127.0.0.1:9/sms',
      ],
      t.env,
    );
    await runCaptured(
      [
        'providers',
        'connect',
        '--account',
        account,
        '--provider',
        'postmark',
        '--channel',
        'email',
        '--endpoint',
        'http://127.0.0.1:9/v2',
      ],
      t.env,
    );
    const list = await runCaptured(['providers', 'list', '--account', account, '--json'], t.env);
    expect(list.json()).toEqual([
      {
        provider: 'postmark',
        channel: 'email',
        kind: 'json',
        endpoint_url: 'http://127.0.0.1:9/v2',
        connected_at: expect.any(String),
      },
      {
        provider: 'twilio',
        channel: 'sms',
        kind: 'json',
        endpoint_url: 'http://127.0.0.1:9/sms',
        connected_at: expect.any(String),
      },
    ]);
    const badChannel = await runCaptured(
      [
        'providers',
        'connect',
        '--account',
        account,
        '--provider',
        'x',
        '--channel',
        'fax',
        '--endpoint',
        'http://127.0.0.1:9/',
      ],
      t.env,
    );
    expect(badChannel.code).toBe(2);
    expect(badChannel.stderr).toContain(`Allowed choices are email, sms.`);
  });
});
