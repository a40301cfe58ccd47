import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, hashToken } from '@holdfast/control-plane';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import { runCaptured } from '../testing/capture.js';

let t: TestEnv;
beforeAll(async () => (t = await createTestEnv('cli-tiles')));
afterAll(() => t.close());

const status = async (account: string) =>
  (await runCaptured(['tiles', 'status', '--account', account, '--json'], t.env)).json<
    { tile: string; status: string; token_prefix: string | null }[]
  >();

describe('holdfast tiles', () => {
  it('connects the custom integration: token once, "awaiting setup" until the first custom-api call', async () => {
    const { id: account } = await createAccount(t.db, { name: 't1' });
    const r = await runCaptured(['tiles', 'connect', 'custom-integration', '--account', account], t.env);
    expect(r.code).toBe(0);
    const [, token] = new RegExp(
      `^Connected custom-integration for ${account} \\(awaiting setup\\)\\nToken \\(shown once, legacy token for /ingest/\\* and POST /webhooks/custom-api \\(query account_id \\+ token\\)\\):\\n(tile_\\w{32})\\n$`,
    ).exec(r.stdout)!;
    const row = await t.db
      .selectFrom('control.tiles')
      .selectAll()
      .where('account_id', '=', account)
      .executeTakeFirstOrThrow();
    expect(row.token_hash.equals(hashToken(token!))).toBe(true);
    expect(await status(account)).toEqual([
      {
        tile: 'custom-integration',
        status: 'awaiting setup',
        token_prefix: token!.slice(0, 9),
        connected_at: expect.any(String),
        first_call_at: null,
      },
      {
        tile: 'zero-party',
        status: 'not connected',
        token_prefix: null,
        connected_at: null,
        first_call_at: null,
      },
    ]);
    // The gateway stamps first_call_at on the first POST /webhooks/custom-api.
    await t.db
      .updateTable('control.tiles')
      .set({ first_call_at: new Date() })
      .where('account_id', '=', account)
      .execute();
    expect((await status(account))[0]!.status).toBe('connected');
    const human = await runCaptured(['tiles', 'status', '--account', account], t.env);
    expect(human.stdout.split('\n')[0]).toMatch(/^TILE +STATUS +TOKEN +CONNECTED +FIRST CALL$/);
    expect(human.stdout.split('\n')[2]).toMatch(/^zero-party +not connected +- +- +-$/);
  });

  it('connects zero-party with its own zp_ token, refuses to re-issue silently, and disconnects', async () => {
    const { id: account } = await createAccount(t.db, { name: 't2' });
    const r = await runCaptured(['tiles', 'connect', 'zero-party', '--account', account, '--json'], t.env);
    expect(r.code).toBe(0);
    const first = r.json<{ token: string }>();
    expect(first).toEqual({
      account_id: account,
      tile: 'zero-party',
      status: 'connected',
      token: expect.stringMatching(/^zp_\w{32}$/),
    });

    const again = await runCaptured(['tiles', 'connect', 'zero-party', '--account', account], t.env);
    expect([again.code, again.stderr]).toEqual([
      2,
      `holdfast: the zero-party tile of ${account} is already connected; pass --reissue to replace its token\n`,
    ]);
    const reissued = await runCaptured(
      ['tiles', 'connect', 'zero-party', '--account', account, '--reissue', '--json'],
      t.env,
    );
    expect(reissued.code).toBe(0);
    expect(reissued.json<{ token: string }>().token).not.toBe(first.token);

    const off = await runCaptured(['tiles', 'disconnect', 'zero-party', '--account', account], t.env);
    expect([off.code, off.stdout]).toEqual([0, `Disconnected zero-party for ${account}\n`]);
    expect((await status(account))[1]).toMatchObject({ tile: 'zero-party', status: 'not connected' });
    const twice = await runCaptured(['tiles', 'disconnect', 'zero-party', '--account', account], t.env);
    expect([twice.code, twice.stderr]).toEqual([
      3,
      `holdfast: the zero-party tile of ${account} is not connected\n`,
    ]);
  });

  it('refuses unknown tiles and accounts', async () => {
    const bad = await runCaptured(
      ['tiles', 'connect', 'shopify', '--account', '00000000-0000-4000-8000-000000000000'],
      t.env,
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(
      `error: command-argument value 'shopify' is invalid for argument 'tile'. Allowed choices are custom-integration, zero-party.`,
    );
    const missing = await runCaptured(
      ['tiles', 'status', '--account', '00000000-0000-4000-8000-000000000000'],
      t.env,
    );
    expect(missing.code).toBe(3);
  });
});
