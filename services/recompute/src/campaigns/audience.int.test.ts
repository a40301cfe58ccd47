import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '@holdfast/db';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import { planAudiences } from './audience.js';
import { DEFAULT_AUDIENCE_RULES } from './campaign-types.js';
import {
  insertCustomer,
  insertScore,
  prepareCampaignSchemas,
  type SeedCustomer,
  type SeedScore,
} from './test-support/seed.js';

const DAY = 86_400_000;
const AS_OF = new Date('2025-03-01T02:00:00.000Z');
const NOW = new Date('2025-03-01T03:00:00.000Z');

describe('audiences: rules, precedence, holdout, consent, cool-down', () => {
  let t: TestEnv;
  let account: string;
  const ids: Record<string, string> = {};

  const plan = async (
    accountId: string,
    now: Date,
    providers: { email: string | null; sms: string | null },
  ) => {
    const c = await t.pool.connect();
    try {
      await c.query('begin');
      const r = await planAudiences(c, {
        accountId,
        runId: randomUUID(),
        taskId: null,
        now,
        readModelSchema: 'read_models',
        emailProvider: providers.email,
        smsProvider: providers.sms,
        rules: DEFAULT_AUDIENCE_RULES,
      });
      await c.query('commit');
      return r;
    } finally {
      c.release();
    }
  };
  const assignments = async (accountId: string, since: Date) => {
    const { rows } = await t.pool.query<{
      customer_id: string;
      campaign_type: string;
      arm: string;
      channel: string;
      provider: string;
      status: string;
      tracking_id: string | null;
    }>(
      `select customer_id, campaign_type, arm, channel, provider, status, tracking_id
         from analytics.campaign_assignments where account_id = $1 and assigned_at >= $2`,
      [accountId, since],
    );
    const byName = Object.fromEntries(Object.entries(ids).map(([k, v]) => [v, k]));
    return Object.fromEntries(rows.map((r) => [byName[r.customer_id] ?? r.customer_id, r]));
  };
  const seed = async (accountId: string, name: string, c: SeedCustomer, s: Omit<SeedScore, 'asOf'>) => {
    ids[name] = await insertCustomer(t, accountId, c);
    await insertScore(t, accountId, ids[name], { asOf: AS_OF, ...s });
  };

  beforeAll(async () => {
    t = await createTestEnv('audience');
    await prepareCampaignSchemas(t);
    account = (await createAccount(t.db, { name: 'Tea shop', storefrontDomain: 'tea.example.com' })).id;
    const soon = (days: number) => new Date(AS_OF.getTime() + days * DAY);
    await seed(account, 'overdue', {}, { lifecycleState: 'Overdue', lifetimeValue: 11 });
    await seed(
      account,
      'lapsedHoldout',
      {},
      { lifecycleState: 'Lapsed', isHoldout: true, lifetimeValue: 12 },
    );
    await seed(account, 'dueIn5', {}, { predictedNextPurchaseAt: soon(5), lifetimeValue: 13 });
    await seed(account, 'dueIn8', {}, { predictedNextPurchaseAt: soon(8), lifetimeValue: 14 });
    await seed(
      account,
      'overdueDueSoon',
      {},
      { lifecycleState: 'Overdue', predictedNextPurchaseAt: soon(3), lifetimeValue: 15 },
    );
    await seed(account, 'vip', {}, { lifetimeValue: 1000 });
    await seed(account, 'vipButLapsed', {}, { lifecycleState: 'Lapsed', lifetimeValue: 900 });
    await seed(account, 'thirdByValue', {}, { lifetimeValue: 800 });
    await seed(
      account,
      'noConsent',
      { marketingEmail: false },
      { lifecycleState: 'Overdue', lifetimeValue: 16 },
    );
    await seed(account, 'suppressed', { suppressed: true }, { lifecycleState: 'Overdue', lifetimeValue: 17 });
    await seed(
      account,
      'bouncedSms',
      { bounced: true, sms: true, phone: '+15550100001' },
      { lifecycleState: 'Lapsed', lifetimeValue: 18 },
    );
    await seed(
      account,
      'smsOnly',
      { email: null, sms: true, phone: '+15550100002' },
      { lifecycleState: 'Overdue', lifetimeValue: 19 },
    );
    await seed(
      account,
      'smsNoPhone',
      { marketingEmail: false, sms: true },
      { lifecycleState: 'Overdue', lifetimeValue: 20 },
    );
    await seed(
      account,
      'smsNoConsent',
      { email: null, phone: '+15550100003' },
      { lifecycleState: 'Overdue', lifetimeValue: 21 },
    );
    // Fillers: 20 customers in all, so the top decile by lifetime value is exactly two customers.
    for (let i = 0; i < 6; i++) await seed(account, `filler${i}`, {}, { lifetimeValue: 1 + i });
  });
  afterAll(() => t.close());

  it('plans one campaign per customer by rule precedence, holds out holdout customers, and honours consent', async () => {
    expect(await plan(account, NOW, { email: 'mailer', sms: 'texter' })).toEqual({ planned: 7, heldOut: 1 });
    const a = await assignments(account, NOW);
    const summary = Object.fromEntries(
      Object.entries(a).map(([k, r]) => [
        k,
        `${r.campaign_type}/${r.arm}/${r.channel}/${r.provider}/${r.status}`,
      ]),
    );
    expect(summary).toEqual({
      overdue: 'win_back/treated/email/mailer/planned',
      lapsedHoldout: 'win_back/holdout/email/mailer/held_out',
      dueIn5: 'replenishment/treated/email/mailer/planned',
      overdueDueSoon: 'win_back/treated/email/mailer/planned',
      vip: 'vip/treated/email/mailer/planned',
      vipButLapsed: 'win_back/treated/email/mailer/planned',
      bouncedSms: 'win_back/treated/sms/texter/planned',
      smsOnly: 'win_back/treated/sms/texter/planned',
    });
    expect(a.lapsedHoldout!.tracking_id).toBeNull();
    for (const r of Object.values(a).filter((x) => x.arm === 'treated'))
      expect(r.tracking_id).toMatch(/^hft_[0-9a-f]{24}$/);
    expect(new Set(Object.values(a).map((r) => r.tracking_id)).size).toBe(8);
  });

  it('does not plan a campaign twice within its cool-down; failed sends do not count', async () => {
    await t.pool.query(
      `update analytics.campaign_assignments set status = 'failed', last_error = 'provider_http_500'
        where account_id = $1 and customer_id = $2`,
      [account, ids.overdue],
    );
    const nextDay = new Date(NOW.getTime() + DAY);
    expect(await plan(account, nextDay, { email: 'mailer', sms: 'texter' })).toEqual({
      planned: 1,
      heldOut: 0,
    });
    expect(Object.keys(await assignments(account, nextDay))).toEqual(['overdue']);
    const day29 = new Date(NOW.getTime() + 29 * DAY);
    expect(await plan(account, day29, { email: 'mailer', sms: 'texter' })).toEqual({
      planned: 0,
      heldOut: 0,
    });
    // 30.5 days on, the first plan's cool-downs are over; the re-planned customer's (day 1) is not.
    const later = new Date(NOW.getTime() + 30.5 * DAY);
    expect(await plan(account, later, { email: 'mailer', sms: 'texter' })).toEqual({
      planned: 6,
      heldOut: 1,
    });
    expect(Object.keys(await assignments(account, later))).not.toContain('overdue');
  });

  it('plans only what the connected channels can reach, within the account', async () => {
    const other = (await createAccount(t.db, { name: 'Other shop' })).id;
    await seed(
      other,
      'otherSmsOnly',
      { email: null, sms: true, phone: '+15550100009' },
      { lifecycleState: 'Lapsed' },
    );
    await seed(other, 'otherEmail', {}, { lifecycleState: 'Lapsed' });
    expect(await plan(other, NOW, { email: 'mailer', sms: null })).toEqual({ planned: 1, heldOut: 0 });
    expect(Object.keys(await assignments(other, NOW))).toEqual(['otherEmail']);
    expect(await plan(other, new Date(NOW.getTime() + 1000), { email: null, sms: 'texter' })).toEqual({
      planned: 1,
      heldOut: 0,
    });
  });
});
