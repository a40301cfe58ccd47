import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ControlPlaneError,
  createAccount,
  hashToken,
  listApiKeys,
  mintApiKey,
  rotateApiKey,
} from '@holdfast/control-plane';
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
      `error: option '--kind <kind>' argument 'gold' is invalid. Allowed choices are live, test, outbound, read.`,
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

  it('mints rk_live_ read keys with a limit of 10 of their own, beside 10 ingest keys', async () => {
    const { id: account } = await createAccount(t.db, { name: 'k-read' });
    for (let i = 0; i < 10; i++) await mint(account);
    const read = await mint(account, 'read');
    expect(read.key).toMatch(/^rk_live_[0-9A-Za-z]{32}$/);
    expect(read).toMatchObject({ kind: 'read', prefix: read.key.slice(0, 12) });
    for (let i = 0; i < 9; i++) await mint(account, 'read');
    const eleventh = await runCaptured(['keys', 'mint', '--account', account, '--kind', 'read'], t.env);
    expect([eleventh.code, eleventh.stderr]).toEqual([
      2,
      'holdfast: account already has 10 live read keys; revoke one first\n',
    ]);
    const rotated = await runCaptured(['keys', 'rotate', read.id, '--grace', '0s', '--json'], t.env);
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(rotated.json<{ kind: string; key: string }>()).toMatchObject({ kind: 'read' });
    expect(rotated.json<{ key: string }>().key).toMatch(/^rk_live_/);
  });

  it('sets whether the ingest keys of an account may read (off by default)', async () => {
    const { id: account } = await createAccount(t.db, { name: 'k-rw' });
    const show = async () =>
      (await runCaptured(['accounts', 'show', account, '--json'], t.env)).json<{
        read_with_ingest_key: boolean;
      }>();
    expect((await show()).read_with_ingest_key).toBe(false);
    const on = await runCaptured(['accounts', 'set-read-with-ingest-key', account, 'on', '--json'], t.env);
    expect(on.json()).toEqual({ id: account, read_with_ingest_key: true });
    expect((await show()).read_with_ingest_key).toBe(true);
    const bad = await runCaptured(['accounts', 'set-read-with-ingest-key', account, 'maybe'], t.env);
    expect([bad.code, bad.stderr]).toEqual([2, 'holdfast: state must be on or off, not "maybe"\n']);
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

  it('refuses a rotation at 10 live keys without touching anything (a key in its grace window counts)', async () => {
    const { id: account } = await createAccount(t.db, { name: 'k7' });
    const keys = [];
    for (let i = 0; i < 10; i++) keys.push(await mint(account));
    const before = await listApiKeys(t.db, account);
    const r = await runCaptured(['keys', 'rotate', keys[3]!.id, '--grace', '1h'], t.env);
    expect([r.code, r.stdout, r.stderr]).toEqual([
      2,
      '',
      'holdfast: account has 10 live ingest keys; a rotation keeps the old key working during its grace ' +
        'window, so both count: revoke another key first, or rotate with --grace 0s\n',
    ]);
    // Nothing changed: the old key has no deadline, no successor exists, and a retry is still possible.
    expect(await listApiKeys(t.db, account)).toEqual(before);
    // A grace of 0 stops the old key at once, so the successor fits.
    const now = await runCaptured(['keys', 'rotate', keys[3]!.id, '--grace', '0s', '--json'], t.env);
    expect(now.code, now.stderr).toBe(0);
    const statuses = (await listApiKeys(t.db, account)).map((k) => k.status);
    expect(statuses.filter((s) => s === 'live')).toHaveLength(10);
    expect(statuses.filter((s) => s === 'expired')).toHaveLength(1);
  });

  it('at 9 live keys a rotation fits; then the grace window holds the 10th place until it ends', async () => {
    const { id: account } = await createAccount(t.db, { name: 'k8' });
    const keys = [];
    for (let i = 0; i < 9; i++) keys.push(await mintApiKey(t.db, account, 'ingest_live'));
    const t0 = new Date();
    const rot = await rotateApiKey(t.db, keys[0]!.id, 60, t0);
    expect(rot.oldKeyExpiresAt).toEqual(new Date(t0.getTime() + 60_000));
    // During the grace window: 10 keys authenticate, an 11th is refused.
    await expect(mintApiKey(t.db, account, 'ingest_live', new Date(t0.getTime() + 59_000))).rejects.toThrow(
      'account already has 10 live ingest keys; revoke one first',
    );
    // After it: the old key no longer authenticates and no longer counts.
    const after = new Date(t0.getTime() + 60_000);
    const byId = new Map((await listApiKeys(t.db, account, after)).map((k) => [k.id, k.status]));
    expect([byId.get(keys[0]!.id), byId.get(rot.id)]).toEqual(['expired', 'live']);
    await mintApiKey(t.db, account, 'ingest_live', after);
    // And an expired key cannot be rotated again (it would come back to life).
    await expect(rotateApiKey(t.db, keys[0]!.id, 60, after)).rejects.toThrow(
      `no live key ${keys[0]!.id} (it is expired)`,
    );
  });

  it('two concurrent rotations of one key yield one successor; the other is a conflict', async () => {
    const { id: account } = await createAccount(t.db, { name: 'k9' });
    const k = await mintApiKey(t.db, account, 'ingest_live');
    const results = await Promise.allSettled(Array.from({ length: 4 }, () => rotateApiKey(t.db, k.id, 3600)));
    const ok = results.filter((r) => r.status === 'fulfilled');
    const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(ok).toHaveLength(1);
    expect(failed).toHaveLength(3);
    for (const f of failed) {
      expect(f.reason).toBeInstanceOf(ControlPlaneError);
      expect((f.reason as ControlPlaneError).code).toBe('conflict');
    }
    const keys = await listApiKeys(t.db, account);
    expect(keys.map((x) => x.status).sort()).toEqual(['expiring', 'live']);
  });

  it('concurrent mints at 9 live keys: exactly one gets the last place', async () => {
    const { id: account } = await createAccount(t.db, { name: 'k10' });
    for (let i = 0; i < 9; i++) await mintApiKey(t.db, account, 'ingest_live');
    const results = await Promise.allSettled(
      Array.from({ length: 3 }, () => mintApiKey(t.db, account, 'ingest_live')),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(await listApiKeys(t.db, account)).toHaveLength(10);
  });
});
