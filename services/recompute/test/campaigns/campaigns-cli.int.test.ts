// `holdfast campaigns ...` against the real PostgreSQL, with the campaign tables the recompute creates,
// and its effect on the campaign step: enabled types and the frequency cap an operator sets are what the
// step decides with.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '@holdfast/cli';
import { createAccount } from '@holdfast/control-plane';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import { loadCampaignSettings } from '../../src/campaigns/campaign-settings.js';
import { prepareCampaignSchemas } from './test-support/seed.js';

let t: TestEnv;
beforeAll(async () => {
  t = await createTestEnv('cli-campaigns');
  await prepareCampaignSchemas(t);
});
afterAll(() => t.close());

async function cli(argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, t.env, {
    stdout: (s) => void (stdout += s),
    stderr: (s) => void (stderr += s),
    stderrIsTTY: false,
  });
  return { code, stdout, stderr };
}

describe('holdfast campaigns', () => {
  it('given a new account, then every type is off and the cap is 1 per 7 days', async () => {
    const { id } = await createAccount(t.db, { name: 'fresh' });
    const r = await cli(['campaigns', 'list', '--account', id, '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      account_id: id,
      sandbox: false,
      frequency_cap: { messages: 1, days: 7 },
      types: [
        { type: 'win_back', enabled: false, changed_at: null },
        { type: 'replenishment', enabled: false, changed_at: null },
        { type: 'vip', enabled: false, changed_at: null },
      ],
    });
    expect((await loadCampaignSettings(t.pool, id)).enabledTypes.size).toBe(0);
  });

  it('enables and disables types and sets the cap; the step reads what the operator set', async () => {
    const { id } = await createAccount(t.db, { name: 'operated', isSandbox: true });
    expect((await cli(['campaigns', 'enable', '--account', id, '--type', 'win_back'])).code).toBe(0);
    expect((await cli(['campaigns', 'enable', '--account', id, '--type', 'vip'])).code).toBe(0);
    expect((await cli(['campaigns', 'disable', '--account', id, '--type', 'vip'])).code).toBe(0);
    const cap = await cli(['campaigns', 'cap', '--account', id, '--messages', '2', '--days', '14']);
    expect(cap.code).toBe(0);
    expect(cap.stdout).toContain('frequency cap: at most 2 message(s) per customer per 14 day(s), all types');
    expect(cap.stdout).toContain('sandbox account: sends are simulated and recorded, never sent');
    expect(cap.stdout).toMatch(/win_back\s+yes/);
    expect(cap.stdout).toMatch(/vip\s+no/);
    const s = await loadCampaignSettings(t.pool, id);
    expect([...s.enabledTypes]).toEqual(['win_back']);
    expect(s.frequencyCap).toEqual({ messages: 2, days: 14 });
    expect(s.sandbox).toBe(true);
  });

  it('refuses an unknown type and an unknown account', async () => {
    const { id } = await createAccount(t.db, { name: 'strict' });
    const bad = await cli(['campaigns', 'enable', '--account', id, '--type', 'birthday']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('birthday');
    const missing = await cli([
      'campaigns',
      'enable',
      '--account',
      '00000000-0000-4000-8000-000000000000',
      '--type',
      'vip',
    ]);
    expect(missing.code).toBe(3);
  });

  it('lists lift reports with the minimum detectable effect and the settlement state', async () => {
    const { id } = await createAccount(t.db, { name: 'reported' });
    await t.pool.query(
      `insert into analytics.lift_reports (account_id, campaign_type, period_start, period_end, treated_customers,
         holdout_customers, treated_revenue_per_customer, holdout_revenue_per_customer, lift, ci_low, ci_high, p_value,
         significant, incremental_revenue, billable_revenue, mde, computed_at, test, p_value_greater, settlement_status,
         settles_at)
       values ($1, 'win_back', '2025-03-01Z', '2025-04-01Z', 1900, 100, 12.5, 10, 2.5, -1.25, 6.5, 0.2, false, 4750, 0,
         5.75, now(), 'permutation', 0.1, 'provisional', '2025-05-31Z')`,
      [id],
    );
    const r = await cli(['campaigns', 'lift', '--account', id]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('MDE/CUST');
    expect(r.stdout).toMatch(
      /win_back\s+2025-03\s+1900\s+100\s+2\.50\s+\[-1\.25, 6\.50\]\s+5\.75\s+0\.00\s+provisional until 2025-05-31/,
    );
    const json = await cli(['campaigns', 'lift', '--account', id, '--json']);
    expect(JSON.parse(json.stdout)).toEqual([
      {
        campaign_type: 'win_back',
        period_start: '2025-03-01T00:00:00.000Z',
        period_end: '2025-04-01T00:00:00.000Z',
        treated_customers: 1900,
        holdout_customers: 100,
        lift: 2.5,
        ci_low: -1.25,
        ci_high: 6.5,
        p_value_greater: 0.1,
        billable_revenue: 0,
        mde: 5.75,
        settlement_status: 'provisional',
        settles_at: '2025-05-31T00:00:00.000Z',
        final_billable_revenue: null,
      },
    ]);
    expect((await cli(['campaigns', 'lift', '--account', id, 'vip', '--json'])).stdout.trim()).toBe('[]');
  });

  it('given a database the recompute never migrated, then every command says how to create the tables', async () => {
    const bare = await createTestEnv('cli-campaigns-bare');
    try {
      const { id } = await createAccount(bare.db, { name: 'bare' });
      for (const argv of [
        ['campaigns', 'list', '--account', id],
        ['campaigns', 'enable', '--account', id, '--type', 'vip'],
        ['campaigns', 'cap', '--account', id, '--messages', '2', '--days', '3'],
        ['campaigns', 'lift', '--account', id],
      ]) {
        let stderr = '';
        const code = await runCli(argv, bare.env, {
          stdout: () => undefined,
          stderr: (s) => void (stderr += s),
          stderrIsTTY: false,
        });
        expect({ argv, code, stderr }).toEqual({
          argv,
          code: 1,
          stderr: expect.stringContaining('the campaign tables do not exist yet') as string,
        });
      }
    } finally {
      await bare.close();
    }
  });

  it('run queues a sending recompute: a cli-triggered sync task (the trigger that sends)', async () => {
    const { id } = await createAccount(t.db, { name: 'run' });
    const r = await cli(['campaigns', 'run', '--account', id, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { task_id: string; trigger: string; sends: boolean };
    expect(out).toMatchObject({ trigger: 'cli', sends: true });
    const { rows } = await t.pool.query(
      `select account_id, trigger, status from control.sync_tasks where id = $1`,
      [out.task_id],
    );
    expect(rows).toEqual([{ account_id: id, trigger: 'cli', status: 'queued' }]);
  }, 60_000);
});
