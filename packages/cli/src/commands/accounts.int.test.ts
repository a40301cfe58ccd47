import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import { runCaptured } from '../testing/capture.js';

let t: TestEnv;
beforeAll(async () => (t = await createTestEnv('cli-accounts')));
afterAll(() => t.close());

const MISSING = '00000000-0000-4000-8000-000000000000';

describe('holdfast accounts', () => {
  it('creates an account, prints it as JSON and stores it', async () => {
    const r = await runCaptured(
      ['accounts', 'create', '--name', 'Acme', '--storefront-domain', 'https://Shop.Acme.com/', '--json'],
      t.env,
    );
    expect(r.code).toBe(0);
    const acc = r.json<{ id: string; created_at: string }>();
    expect(acc).toEqual({
      id: acc.id,
      name: 'Acme',
      storefront_domain: 'shop.acme.com',
      is_demo: false,
      is_sandbox: false,
      created_at: acc.created_at,
    });
    const row = await t.db
      .selectFrom('control.accounts')
      .selectAll()
      .where('id', '=', acc.id)
      .executeTakeFirstOrThrow();
    expect(row.storefront_domain).toBe('shop.acme.com');
  });

  it('prints the id for people, and a hint on stderr when the domain is missing', async () => {
    const r = await runCaptured(['accounts', 'create', '--name', 'No Domain'], t.env);
    expect(r.code).toBe(0);
    const id = /^Created account ([0-9a-f-]{36}) \(No Domain\)\n$/.exec(r.stdout)?.[1];
    expect(id).toBeDefined();
    expect(r.stderr).toBe(
      `Set its storefront domain before any campaign: holdfast accounts set-domain ${id} <domain>\n`,
    );
  });

  it('shows an account with its tiles and counts', async () => {
    const { id } = (await runCaptured(['accounts', 'create', '--name', 'Shown', '--json'], t.env)).json<{
      id: string;
    }>();
    const r = await runCaptured(['accounts', 'show', id, '--json'], t.env);
    expect(r.code).toBe(0);
    expect(r.json()).toMatchObject({
      id,
      name: 'Shown',
      storefront_domain: null,
      live_ingest_keys: 0,
      outbound_keys: 0,
      tiles: { custom_integration: 'not connected', zero_party: 'not connected' },
      pixel_keys: 0,
      webhook_subscriptions: 0,
      providers: [],
    });
    const human = await runCaptured(['accounts', 'show', id], t.env);
    expect(human.stdout).toContain(`Account           ${id}\nName              Shown\n`);
    expect(human.stdout).toContain('Storefront domain - (not set: campaigns cannot be built)\n');
  });

  it('lists accounts oldest first', async () => {
    const r = await runCaptured(['--json', 'accounts', 'list'], t.env);
    expect(r.code).toBe(0);
    const names = r.json<{ name: string }[]>().map((a) => a.name);
    expect(names.slice(0, 3)).toEqual(['Acme', 'No Domain', 'Shown']);
    const human = await runCaptured(['accounts', 'list'], t.env);
    expect(human.stdout.split('\n')[0]).toMatch(/^ID +NAME +DOMAIN +FLAGS +CREATED$/);
  });

  it('sets the storefront domain, refusing anything with a path', async () => {
    const { id } = (await runCaptured(['accounts', 'create', '--name', 'D', '--json'], t.env)).json<{
      id: string;
    }>();
    const ok = await runCaptured(['accounts', 'set-domain', id, 'SHOP.example.com'], t.env);
    expect([ok.code, ok.stdout]).toEqual([0, `Storefront domain of ${id} is now shop.example.com\n`]);
    const bad = await runCaptured(['accounts', 'set-domain', id, 'shop.example.com/path'], t.env);
    expect([bad.code, bad.stdout, bad.stderr]).toEqual([
      2,
      '',
      'holdfast: "shop.example.com/path" must be a domain like shop.example.com\n',
    ]);
    const missing = await runCaptured(['accounts', 'set-domain', MISSING, 'a.example.com'], t.env);
    expect([missing.code, missing.stderr]).toEqual([3, `holdfast: no account ${MISSING}\n`]);
  });

  it('marks demo and sandbox, refusing to flip sandbox while tk_live_ keys work', async () => {
    const { id } = (await runCaptured(['accounts', 'create', '--name', 'M', '--json'], t.env)).json<{
      id: string;
    }>();
    const demo = await runCaptured(['accounts', 'mark', id, '--demo', '--sandbox', '--json'], t.env);
    expect(demo.code).toBe(0);
    expect(demo.json()).toMatchObject({ id, is_demo: true, is_sandbox: true });
    const back = await runCaptured(['accounts', 'mark', id, '--no-demo', '--no-sandbox'], t.env);
    expect([back.code, back.stdout]).toEqual([0, `Account ${id}: demo=false sandbox=false\n`]);
    await runCaptured(['keys', 'mint', '--account', id], t.env);
    const refused = await runCaptured(['accounts', 'mark', id, '--sandbox'], t.env);
    expect([refused.code, refused.stderr]).toEqual([
      2,
      `holdfast: account ${id} has 1 working tk_live_ key(s); revoke them before changing the sandbox flag\n`,
    ]);
    const nothing = await runCaptured(['accounts', 'mark', id], t.env);
    expect([nothing.code, nothing.stderr]).toEqual([
      2,
      'holdfast: nothing to change: pass --demo, --no-demo, --sandbox or --no-sandbox\n',
    ]);
  });

  it('answers 3 for an unknown account and 2 for something that is not an id', async () => {
    const missing = await runCaptured(['accounts', 'show', MISSING], t.env);
    expect([missing.code, missing.stdout, missing.stderr]).toEqual([
      3,
      '',
      `holdfast: no account ${MISSING}\n`,
    ]);
    const bad = await runCaptured(['accounts', 'show', 'acme'], t.env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`error: command-argument value 'acme' is invalid for argument 'id'.`);
  });
});
