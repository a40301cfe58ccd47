import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, hashToken } from '@holdfast/db';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import { runCaptured } from '../testing/capture.js';

let t: TestEnv;
beforeAll(async () => (t = await createTestEnv('cli-keys')));
afterAll(() => t.close());

interface Minted {
  id: string;
  account_id: string;
  kind: string;
  prefix: string;
  key: string;
}

async function mint(account: string, kind = 'live'): Promise<Minted> {
  const r = await runCaptured(['keys', 'mint', '--account', account, '--kind', kind, '--json'], t.env);
  expect(r.code, r.stderr).toBe(0);
  return r.json<Minted>();
}

describe('holdfast keys', () => {
  it('mints a tk_live_ key shown once and stored only as a hash', async () => {
    const { id: account } = await createAccount(t.db, { name: 'k1' });
    const r = await runCaptured(['keys', 'mint', '--account', account], t.env);
    expect(r.code).toBe(0);
    const [, keyId, key] =
      /^Minted live key (\S+) for account \S+\nKey \(shown once: store it now, it cannot be displayed again\):\n(tk_live_\w{32})\n$/.exec(
        r.stdout,
      )!;
    const row = await t.db
      .selectFrom('control.api_keys')
      .selectAll()
      .where('id', '=', keyId!)
      .executeTakeFirstOrThrow();
    expect(row.key_hash.equals(hashToken(key!))).toBe(true);
    expect(row).toMatchObject({ account_id: account, kind: 'ingest_live', prefix: key!.slice(0, 12) });
  });

  it('mints sk_live_ outbound keys and keeps tk_test_ for sandbox accounts', async () => {
    const { id: account } = await createAccount(t.db, { name: 'k2' });
    const outbound = await mint(account, 'outbound');
    expect(outbound.key).toMatch(/^sk_live_\w{32}$/);
    expect(outbound).toEqual({
      id: outbound.id,
      account_id: account,
      kind: 'outbound',
      prefix: outbound.key.slice(0, 12),
      key: outbound.key,
    });
    const test = await runCaptured(['keys', 'mint', '--account', account, '--kind', 'test'], t.env);
    expect([test.code, test.stdout, test.stderr]).toEqual([
      2,
      '',
      'holdfast: tk_test_ keys are for sandbox accounts only (mark the account as sandbox)\n',
    ]);
    const { id: sandbox } = await createAccount(t.db, { name: 'k2s', isSandbox: true });
    expect((await mint(sandbox, 'test')).key).toMatch(/^tk_test_/);
    const live = await runCaptured(['keys', 'mint', '--account', sandbox, '--kind', 'live'], t.env);
    expect([live.code, live.stderr]).toEqual([
      2,
      'holdfast: a sandbox account takes tk_test_ keys, not tk_live_\n',
    ]);
    const badKind = await runCaptured(['keys', 'mint', '--account', sandbox, '--kind', 'gold'], t.env);
    expect(badKind.code).toBe(2);
    expect(badKind.stderr).toContain(
      `error: option '--kind <kind>' argument 'gold' is invalid. Allowed choices are live, test, outbound.`,
    );
  });

  it('allows at most 10 live ingest keys; revoked ones and outbound keys do not count', async () => {
    const { id: account } = await createAccount(t.db, { name: 'k3' });
    const keys = [];
    for (let i = 0; i < 10; i++) keys.push(await mint(account));
    await mint(account, 'outbound');
    const eleventh = await runCaptured(['keys', 'mint', '--account', account], t.env);
    expect([eleventh.code, eleventh.stderr]).toEqual([
      2,
      'holdfast: account already has 10 live ingest keys; revoke one first\n',
    ]);
    expect((await runCaptured(['keys', 'revoke', keys[0]!.id], t.env)).code).toBe(0);
    await mint(account);
  });

  it('lists prefix, created, last used and status: live, revoked, expiring, expired', async () => {
    const { id: account } = await createAccount(t.db, { name: 'k4' });
    const live = await mint(account);
    const revoked = await mint(account);
    const expiring = await mint(account);
    const expired = await mint(account);
    await runCaptured(['keys', 'revoke', revoked.id], t.env);
    const rot = await runCaptured(['keys', 'rotate', expiring.id, '--grace', '1h', '--json'], t.env);
    expect(rot.code).toBe(0);
    const rotated = rot.json<{ id: string; key: string; old_key_expires_at: string }>();
    expect(Date.parse(rotated.old_key_expires_at) - Date.now()).toBeGreaterThan(3500_000);
    await runCaptured(['keys', 'rotate', expired.id, '--grace', '0s'], t.env);
    await t.db
      .updateTable('control.api_keys')
      .set({ last_used_at: new Date('2026-01-02T03:04:05Z') })
      .where('id', '=', live.id)
      .execute();

    const r = await runCaptured(['keys', 'list', '--account', account, '--json'], t.env);
    expect(r.code).toBe(0);
    const rows = r.json<{ id: string; status: string; prefix: string; last_used_at: string | null }[]>();
    expect(rows.map((k) => [k.id, k.status])).toEqual([
      [live.id, 'live'],
      [revoked.id, 'revoked'],
      [expiring.id, 'expiring'],
      [expired.id, 'expired'],
      [rotated.id, 'live'],
      [expect.any(String), 'live'],
    ]);
    expect(rows[0]).toMatchObject({ prefix: live.prefix, last_used_at: '2026-01-02T03:04:05.000Z' });

    const human = await runCaptured(['keys', 'list', '--account', account], t.env);
    const lines = human.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID +KIND +PREFIX +CREATED +LAST USED +STATUS$/);
    expect(lines[1]).toMatch(
      new RegExp(`^${live.id}  live  ${live.prefix}… +\\S+  2026-01-02T03:04:05Z  live$`),
    );
    expect(lines[3]).toMatch(/ expiring \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  it('rotates only working keys, once', async () => {
    const { id: account } = await createAccount(t.db, { name: 'k5' });
    const k = await mint(account);
    const r = await runCaptured(['keys', 'rotate', k.id, '--grace', '24h'], t.env);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      new RegExp(
        `^Rotated ${k.id}: it keeps working until \\S+Z\\nNew key \\S+ \\(shown once: store it now, it cannot be displayed again\\):\\ntk_live_\\w{32}\\n$`,
      ),
    );
    const again = await runCaptured(['keys', 'rotate', k.id], t.env);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(
      new RegExp(
        `^holdfast: key ${k.id} was already rotated and expires at \\S+; rotate its replacement instead\\n$`,
      ),
    );
    const badGrace = await runCaptured(['keys', 'rotate', k.id, '--grace', 'soon'], t.env);
    expect(badGrace.code).toBe(2);
    expect(badGrace.stderr).toContain('"soon" is not a duration like 90s, 15m, 24h or 7d.');
  });

  it('revokes at once in the database; a second revoke or an unknown key is not found', async () => {
    const { id: account } = await createAccount(t.db, { name: 'k6' });
    const k = await mint(account);
    const before = Date.now();
    const r = await runCaptured(['keys', 'revoke', k.id, '--json'], t.env);
    expect(r.code).toBe(0);
    expect(r.json()).toEqual({ id: k.id, status: 'revoked', revoked_at: expect.any(String) });
    const row = await t.db
      .selectFrom('control.api_keys')
      .select('revoked_at')
      .where('id', '=', k.id)
      .executeTakeFirstOrThrow();
    expect(row.revoked_at!.getTime()).toBeGreaterThanOrEqual(before - 1000);
    const again = await runCaptured(['keys', 'revoke', k.id], t.env);
    expect([again.code, again.stderr]).toEqual([3, `holdfast: no live key ${k.id}\n`]);
    const rotate = await runCaptured(['keys', 'rotate', k.id], t.env);
    expect([rotate.code, rotate.stderr]).toEqual([3, `holdfast: no live key ${k.id} (it is revoked)\n`]);
    const list = await runCaptured(
      ['keys', 'list', '--account', '00000000-0000-4000-8000-000000000000'],
      t.env,
    );
    expect(list.code).toBe(3);
  });
});
