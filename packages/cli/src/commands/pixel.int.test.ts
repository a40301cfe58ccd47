import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, hashToken } from '@holdfast/control-plane';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import { runCaptured } from '../testing/capture.js';

let t: TestEnv;
beforeAll(async () => (t = await createTestEnv('cli-pixel')));
afterAll(() => t.close());

describe('holdfast pixel', () => {
  it('creates a key with normalised origins, stored hashed', async () => {
    const { id: account } = await createAccount(t.db, { name: 'p1' });
    const r = await runCaptured(
      [
        'pixel',
        'create-key',
        '--account',
        account,
        '--origin',
        'https://Shop.Example.com',
        '--origin',
        'http://127.0.0.1:5173/',
        '--json',
      ],
      t.env,
    );
    expect(r.code).toBe(0);
    const k = r.json<{ id: string; key: string }>();
    expect(k).toEqual({
      id: k.id,
      account_id: account,
      key: expect.stringMatching(/^pk_\w{32}$/),
      origins: ['https://shop.example.com', 'http://127.0.0.1:5173'],
    });
    const row = await t.db
      .selectFrom('control.pixel_keys')
      .selectAll()
      .where('id', '=', k.id)
      .executeTakeFirstOrThrow();
    expect(row.key_hash.equals(hashToken(k.key))).toBe(true);
  });

  it('refuses origins with a path, and more than 50, before creating anything', async () => {
    const { id: account } = await createAccount(t.db, { name: 'p2' });
    const path = await runCaptured(
      ['pixel', 'create-key', '--account', account, '--origin', 'https://shop.example.com/cart'],
      t.env,
    );
    expect([path.code, path.stderr]).toEqual([
      2,
      'holdfast: "https://shop.example.com/cart" must be scheme://host with no path\n',
    ]);
    const many = Array.from({ length: 51 }, (_, i) => ['--origin', `https://s${i}.example.com`]).flat();
    const tooMany = await runCaptured(['pixel', 'create-key', '--account', account, ...many], t.env);
    expect([tooMany.code, tooMany.stderr]).toEqual([2, 'holdfast: a pixel key takes at most 50 origins\n']);
    const fifty = await runCaptured(
      ['pixel', 'create-key', '--account', account, ...many.slice(0, 100), '--json'],
      t.env,
    );
    expect(fifty.code).toBe(0);
    const id = fifty.json<{ id: string }>().id;
    const more = await runCaptured(['pixel', 'add-origin', id, 'https://one-more.example.com'], t.env);
    expect([more.code, more.stderr]).toEqual([2, 'holdfast: a pixel key takes at most 50 origins\n']);
    const keys = await t.db
      .selectFrom('control.pixel_keys')
      .select('id')
      .where('account_id', '=', account)
      .execute();
    expect(keys).toHaveLength(1);
  });

  it('adds and removes origins, lists, and revokes', async () => {
    const { id: account } = await createAccount(t.db, { name: 'p3' });
    const created = await runCaptured(['pixel', 'create-key', '--account', account], t.env);
    expect(created.code).toBe(0);
    const id = /^Created pixel key (\S+) for/.exec(created.stdout)![1]!;
    expect(created.stdout).toContain(`Origins: none yet: holdfast pixel add-origin ${id} <origin>\n`);

    const add = await runCaptured(['pixel', 'add-origin', id, 'https://a.example.com', '--json'], t.env);
    expect(add.json()).toEqual({ id, origin: 'https://a.example.com', origins: ['https://a.example.com'] });
    await runCaptured(['pixel', 'add-origin', id, 'https://b.example.com'], t.env);
    const remove = await runCaptured(['pixel', 'remove-origin', id, 'https://a.example.com'], t.env);
    expect([remove.code, remove.stdout]).toEqual([
      0,
      `Pixel key ${id} no longer allows https://a.example.com\n`,
    ]);
    const gone = await runCaptured(['pixel', 'remove-origin', id, 'https://a.example.com'], t.env);
    expect([gone.code, gone.stderr]).toEqual([
      3,
      `holdfast: pixel key ${id} does not allow https://a.example.com\n`,
    ]);

    const list = await runCaptured(['pixel', 'list', '--account', account, '--json'], t.env);
    expect(list.json()).toEqual([
      {
        id,
        account_id: account,
        prefix: expect.stringMatching(/^pk_\w{4}$/),
        status: 'live',
        created_at: expect.any(String),
        revoked_at: null,
        origins: ['https://b.example.com'],
      },
    ]);
    const revoke = await runCaptured(['pixel', 'revoke', id], t.env);
    expect([revoke.code, revoke.stdout]).toEqual([0, `Revoked pixel key ${id}\n`]);
    const row = await t.db
      .selectFrom('control.pixel_keys')
      .select('revoked_at')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row.revoked_at).not.toBeNull();
    const again = await runCaptured(['pixel', 'revoke', id], t.env);
    expect([again.code, again.stderr]).toEqual([3, `holdfast: pixel key ${id} is revoked\n`]);
    const human = await runCaptured(['pixel', 'list', '--account', account], t.env);
    expect(human.stdout.split('\n')[1]).toMatch(
      new RegExp(`^${id}  pk_\\w{4}…  revoked  \\S+  https://b.example.com$`),
    );
  });
});
