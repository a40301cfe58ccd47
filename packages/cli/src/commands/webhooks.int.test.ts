import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '@holdfast/db';
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
    expect(row).toMatchObject({ account_id: account, url: 'https://hooks.example.com/hf', secret });

    const list = await runCaptured(['webhooks', 'list', '--account', account, '--json'], t.env);
    expect(list.json()).toEqual([
      {
        id,
        url: 'https://hooks.example.com/hf',
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
      new RegExp(`^${id}  removed  \\S+  https://hooks.example.com/hf$`),
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
        endpoint_url: 'http://127.0.0.1:9/v2',
        connected_at: expect.any(String),
      },
      {
        provider: 'twilio',
        channel: 'sms',
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
