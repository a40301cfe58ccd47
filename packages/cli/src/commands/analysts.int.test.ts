import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVICE_ROLES } from '@holdfast/postgres';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import { runCaptured } from '../testing/capture.js';

// Roles are cluster-wide: the login gets a name unique to this run, dropped at the end.
let t: TestEnv;
const LOGIN = `hf_cli_${randomBytes(3).toString('hex')}_analyst`;
beforeAll(async () => {
  t = await createTestEnv('cli-analysts');
  await t.pool.query(`create role "${LOGIN}" login`);
});
afterAll(async () => {
  await t?.close();
  const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await admin.connect();
  await admin.query(`drop role if exists "${LOGIN}"`);
  await admin.end();
});

const isAnalyst = async () =>
  (
    await t.pool.query<{ ok: boolean }>(`select pg_has_role($1, $2, 'MEMBER') as ok`, [
      LOGIN,
      SERVICE_ROLES.analyst,
    ])
  ).rows[0]!.ok;

describe('holdfast analysts', () => {
  it('grants an account to a login (making it an analyst), lists and revokes it', async () => {
    const { id } = (await runCaptured(['accounts', 'create', '--name', 'Acme', '--json'], t.env)).json<{
      id: string;
    }>();
    expect(await isAnalyst()).toBe(false);

    const granted = await runCaptured(
      ['analysts', 'grant', '--login', LOGIN, '--account', id, '--json'],
      t.env,
    );
    expect([granted.code, granted.stderr]).toEqual([0, '']);
    expect(granted.json()).toEqual({ login: LOGIN, account_id: id, granted: true, made_analyst: true });
    expect(await isAnalyst()).toBe(true);

    const again = await runCaptured(['analysts', 'grant', '--login', LOGIN, '--account', id], t.env);
    expect(again.stdout).toBe(`"${LOGIN}" already had account ${id}; nothing changed.\n`);

    const listed = await runCaptured(['analysts', 'list', '--login', LOGIN, '--json'], t.env);
    expect(listed.json()).toEqual([
      {
        login: LOGIN,
        account_id: id,
        account_name: 'Acme',
        granted_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as string,
        granted_by: 'postgres',
        login_exists: true,
      },
    ]);
    const text = await runCaptured(['analysts', 'list'], t.env);
    expect(text.stdout).toMatch(new RegExp(`^LOGIN +ACCOUNT +NAME +GRANTED +BY\\n${LOGIN} +${id} +Acme `));

    const revoked = await runCaptured(
      ['analysts', 'revoke', '--login', LOGIN, '--account', id, '--json'],
      t.env,
    );
    expect(revoked.json()).toEqual({ login: LOGIN, account_id: id, revoked: true });
    expect((await runCaptured(['analysts', 'list', '--json'], t.env)).json()).toEqual([]);
    const twice = await runCaptured(['analysts', 'revoke', '--login', LOGIN, '--account', id], t.env);
    expect([twice.code, twice.stderr]).toEqual([3, `holdfast: "${LOGIN}" has no grant for account ${id}\n`]);
  });

  it('refuses a missing login, a missing account and a service role, with what to do', async () => {
    const { id } = (await runCaptured(['accounts', 'create', '--name', 'Beta', '--json'], t.env)).json<{
      id: string;
    }>();
    const ghost = await runCaptured(
      ['analysts', 'grant', '--login', 'hf_no_such_login', '--account', id],
      t.env,
    );
    expect([ghost.code, ghost.stderr]).toEqual([
      3,
      `holdfast: no role "hf_no_such_login": create the analyst's login first (create role "hf_no_such_login" login password '…')\n`,
    ]);
    const noAccount = await runCaptured(
      ['analysts', 'grant', '--login', LOGIN, '--account', '00000000-0000-4000-8000-000000000000'],
      t.env,
    );
    expect([noAccount.code, noAccount.stderr]).toEqual([
      3,
      'holdfast: no account 00000000-0000-4000-8000-000000000000\n',
    ]);
    const service = await runCaptured(
      ['analysts', 'grant', '--login', SERVICE_ROLES.gateway, '--account', id],
      t.env,
    );
    expect([service.code, service.stderr]).toEqual([
      2,
      `holdfast: "${SERVICE_ROLES.gateway}" is a service role: an analyst needs a login of their own\n`,
    ]);
    const usage = await runCaptured(['analysts', 'grant', '--account', id], t.env);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("error: required option '--login <name>' not specified");
  });
});
