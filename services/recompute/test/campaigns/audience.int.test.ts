import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '@holdfast/control-plane';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import { planAudiences, type PlanResult } from '../../src/campaigns/audience.js';
import type { AccountCampaignSettings } from '../../src/campaigns/campaign-settings.js';
import { CAMPAIGN_TYPES } from '@holdfast/domain';
import { DEFAULT_AUDIENCE_RULES } from '../../src/campaigns/campaign-types.js';
import {
  insertCustomer,
  insertScore,
  prepareCampaignSchemas,
  type SeedCustomer,
  type SeedScore,
} from './test-support/seed.js';
import { DEFAULT_READ_MODEL_SCHEMA } from '@holdfast/read-models';

const DAY = 86_400_000;
const AS_OF = new Date('2025-03-01T02:00:00.000Z');
const NOW = new Date('2025-03-01T03:00:00.000Z');
const ALL_ON: AccountCampaignSettings = {
  enabledTypes: new Set(CAMPAIGN_TYPES),
  frequencyCap: { messages: 1, days: 7 },
  sandbox: false,
};
const counts = (c: Partial<PlanResult>): PlanResult => ({
  send: 0,
  held_out: 0,
  sandbox_simulated: 0,
  capped: 0,
  no_consent: 0,
  suppressed: 0,
  disabled: 0,
  ...c,
});

describe('audiences: rules, precedence, holdout, consent, cool-down', () => {
  let t: TestEnv;
  let account: string;
  const ids: Record<string, string> = {};

  const plan = async (
    accountId: string,
    now: Date,
    providers: { email: string | null; sms: string | null },
    settings: AccountCampaignSettings = ALL_ON,
  ) => {
    const c = await t.pool.connect();
    try {
      await c.query('begin');
      const r = await planAudiences(c, {
        accountId,
        runId: randomUUID(),
        taskId: null,
        now,
        readModelSchema: DEFAULT_READ_MODEL_SCHEMA,
        emailProvider: providers.email,
        smsProvider: providers.sms,
        rules: DEFAULT_AUDIENCE_RULES,
        settings,
        storefrontDomain: 'tea.example.com',
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
      channel: string | null;
      provider: string | null;
      status: string;
      tracking_id: string | null;
      url: string | null;
      sent_at: Date | null;
    }>(
      `select customer_id, campaign_type, arm, channel, provider, status, tracking_id, url, sent_at
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
    expect(await plan(account, NOW, { email: 'mailer', sms: 'texter' })).toEqual(
      counts({ send: 7, held_out: 1, no_consent: 3, suppressed: 1 }),
    );
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
      noConsent: 'win_back/treated/null/null/no_consent',
      suppressed: 'win_back/treated/null/null/suppressed',
      smsNoPhone: 'win_back/treated/null/null/no_consent',
      smsNoConsent: 'win_back/treated/null/null/no_consent',
    });
    expect(a.lapsedHoldout!.tracking_id).toBeNull();
    const planned = Object.values(a).filter((x) => x.status === 'planned');
    for (const r of planned) expect(r.tracking_id).toMatch(/^hft_[0-9a-f]{24}$/);
    expect(new Set(planned.map((r) => r.tracking_id)).size).toBe(7);
    for (const r of Object.values(a).filter((x) => x.status !== 'planned')) expect(r.tracking_id).toBeNull();
  });

  it('does not plan a campaign twice within its cool-down; failed sends do not count', async () => {
    await t.pool.query(
      `update analytics.campaign_assignments set status = 'failed', last_error = 'provider_http_500'
        where account_id = $1 and customer_id = $2`,
      [account, ids.overdue],
    );
    const nextDay = new Date(NOW.getTime() + DAY);
    // Decisions not to send (no consent, suppressed) are recorded once per cool-down, not nightly.
    expect(await plan(account, nextDay, { email: 'mailer', sms: 'texter' })).toEqual(counts({ send: 1 }));
    expect(Object.keys(await assignments(account, nextDay))).toEqual(['overdue']);
    const day29 = new Date(NOW.getTime() + 29 * DAY);
    expect(await plan(account, day29, { email: 'mailer', sms: 'texter' })).toEqual(counts({}));
    // 30.5 days on, the first plan's cool-downs are over; the re-planned customer's (day 1) is not.
    const later = new Date(NOW.getTime() + 30.5 * DAY);
    expect(await plan(account, later, { email: 'mailer', sms: 'texter' })).toEqual(
      counts({ send: 6, held_out: 1, no_consent: 3, suppressed: 1 }),
    );
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
    expect(await plan(other, NOW, { email: 'mailer', sms: null })).toEqual(
      counts({ send: 1, no_consent: 1 }),
    );
    expect((await assignments(other, NOW)).otherEmail!.status).toBe('planned');
    expect((await assignments(other, NOW)).otherSmsOnly!.status).toBe('no_consent');
    expect(await plan(other, new Date(NOW.getTime() + 1000), { email: null, sms: 'texter' })).toEqual(
      counts({ send: 1 }),
    );
  });

  it('caps messages across types for both arms, records disabled types, and simulates sandbox sends', async () => {
    const shop = (await createAccount(t.db, { name: 'Capped shop' })).id;
    await seed(shop, 'capVip', {}, { lifetimeValue: 1000 });
    await seed(shop, 'capHoldout', {}, { lifetimeValue: 900, isHoldout: true });
    await seed(shop, 'freshLapsed', {}, { lifecycleState: 'Lapsed' });
    for (let i = 0; i < 17; i++) await seed(shop, `shopFiller${i}`, {}, { lifetimeValue: 1 });
    // A win_back message 3 days ago (treated, sent) and a holdout's win_back 3 days ago (held out).
    const earlier = new Date(NOW.getTime() - 3 * DAY);
    for (const [name, arm, status] of [
      ['capVip', 'treated', 'sent'],
      ['capHoldout', 'holdout', 'held_out'],
    ] as const)
      await t.pool.query(
        `insert into analytics.campaign_assignments (assignment_id, account_id, run_id, campaign_type, customer_id, arm,
           channel, provider, status, tracking_id, assigned_at)
         values (gen_random_uuid(), $1, gen_random_uuid(), 'win_back', $2, $3, 'email', 'mailer', $4,
           case when $3 = 'treated' then 'hft_' || left(md5(gen_random_uuid()::text), 24) end, $5)`,
        [shop, ids[name], arm, status, earlier],
      );
    const onlyVip = { ...ALL_ON, enabledTypes: new Set(['vip']) };
    expect(await plan(shop, NOW, { email: 'mailer', sms: null }, onlyVip)).toEqual(
      counts({ capped: 2, disabled: 1 }),
    );
    let a = await assignments(shop, NOW);
    expect([a.capVip!.status, a.capHoldout!.status, a.freshLapsed!.status]).toEqual([
      'capped',
      'capped',
      'disabled',
    ]);
    expect(a.capHoldout!.arm).toBe('holdout');
    // Cap of 2 per 7 days: both pass; a sandbox account simulates instead of planning a send.
    const later = new Date(NOW.getTime() + 1000);
    const sandbox = { ...onlyVip, frequencyCap: { messages: 2, days: 7 }, sandbox: true };
    expect(await plan(shop, later, { email: null, sms: null }, sandbox)).toEqual(
      counts({ sandbox_simulated: 1, held_out: 1 }),
    );
    a = await assignments(shop, later);
    expect(a.capVip).toMatchObject({
      status: 'sandbox_simulated',
      channel: 'email',
      provider: 'sandbox',
      sent_at: later,
    });
    expect(a.capVip!.url).toBe(
      `https://tea.example.com/?utm_source=holdfast&utm_medium=email&utm_campaign=vip&utm_content=${a.capVip!.tracking_id}`,
    );
    expect(a.capHoldout).toMatchObject({ status: 'held_out', provider: 'sandbox', tracking_id: null });
  });
});
