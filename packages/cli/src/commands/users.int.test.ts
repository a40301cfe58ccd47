import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  acceptInvite,
  createAccount,
  findInvite,
  listApiKeys,
  membershipRole,
  mintExpiringReadKey,
  secretDigest,
} from '@holdfast/control-plane';
import { ConsoleKeyring } from '@holdfast/secrets';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import { runCaptured } from '../testing/capture.js';

let t: TestEnv;
beforeAll(async () => (t = await createTestEnv('cli-users')));
afterAll(() => t.close());

describe('holdfast users invite', () => {
  it('given an account, when its first owner is invited, then a one-time link on the console URL is printed and works once', async () => {
    const { id: account } = await createAccount(t.db, { name: 'u1' });
    const env = { ...t.env, HOLDFAST_CONSOLE_URL: 'https://console.example.com/' };
    const r = await runCaptured(
      ['users', 'invite', '--account', account, '--email', 'Ann@Shop.example'],
      env,
    );
    expect(r.code).toBe(0);
    const [, token] = /https:\/\/console\.example\.com\/invite\/([A-Za-z0-9_-]{43})\n$/.exec(r.stdout)!;
    const invite = await findInvite(t.db, token!);
    expect(invite?.email).toBe('ann@shop.example');
    expect(await membershipRole(t.db, invite!.user_id, account)).toBe('owner');
    // Only the digest is stored, and the link works once (then it is used).
    const { rows } = await t.pool.query<{ token_hash: Buffer }>(`select token_hash from control.invites`);
    expect(rows.map((x) => x.token_hash.toString('hex'))).toEqual([secretDigest(token!).toString('hex')]);
    const keyring = new ConsoleKeyring([{ id: 'c1', key: randomBytes(32) }]);
    expect(
      await acceptInvite(t.db, token!, { passwordHash: 'x', totpSecret: 'X', totpStep: 1 }, keyring),
    ).toBeDefined();
    expect(
      await acceptInvite(t.db, token!, { passwordHash: 'y', totpSecret: 'Y', totpStep: 2 }, keyring),
    ).toBeUndefined();
    expect(await findInvite(t.db, token!)).toBeUndefined();
  });

  it('given no account and no --operator, when invited, then usage (exit 2); an unknown account is not found', async () => {
    expect((await runCaptured(['users', 'invite', '--email', 'a@b.example'], t.env)).code).toBe(2);
    const r = await runCaptured(
      ['users', 'invite', '--account', '00000000-0000-4000-8000-000000000000', '--email', 'a@b.example'],
      t.env,
    );
    expect(r.code).toBe(3);
  });

  it('given --operator, when invited, then the user is an operator and the JSON says so', async () => {
    const r = await runCaptured(
      ['users', 'invite', '--operator', '--email', 'ops@holdfast.example', '--json'],
      t.env,
    );
    expect(r.code).toBe(0);
    expect(r.json<{ role: string; existing_user: boolean }>()).toMatchObject({
      role: 'operator',
      existing_user: false,
    });
  });
});

describe("the console's expiring read key", () => {
  it('given a minted expiring read key, when listed, then it is expiring until its deadline and expired after', async () => {
    const { id: account } = await createAccount(t.db, { name: 'u2' });
    const now = new Date('2026-11-27T12:00:00Z');
    const k = await mintExpiringReadKey(t.db, account, 600, now);
    expect(k.key).toMatch(/^rk_live_/);
    expect((await listApiKeys(t.db, account, now))[0]!.status).toBe('expiring');
    expect((await listApiKeys(t.db, account, new Date(now.getTime() + 601_000)))[0]!.status).toBe('expired');
  });
});
