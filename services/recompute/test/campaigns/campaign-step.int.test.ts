import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectProvider, createAccount } from '@holdfast/control-plane';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import { campaignSentEventId } from '../../src/campaigns/campaign-events.js';
import { tryLockAccount } from '../../src/campaigns/campaign-runs.js';
import { runCampaignStep, type CampaignStepDeps } from '../../src/campaigns/campaign-step.js';
import { CAMPAIGN_TYPES } from '@holdfast/domain';
import { CaptureAppender } from './test-support/capture-appender.js';
import { startLocalProvider, type LocalProvider } from './test-support/local-provider.js';
import { insertCustomer, insertScore, prepareCampaignSchemas } from './test-support/seed.js';
import { DEFAULT_READ_MODEL_SCHEMA } from '@holdfast/read-models';

const AS_OF = new Date('2025-03-01T02:00:00.000Z');
const NOW = new Date('2025-03-01T03:00:00.000Z');
const config = {
  topicPrefix: 'tstep-',
  readModelSchema: DEFAULT_READ_MODEL_SCHEMA,
  publicUrl: 'https://hf.example.com',
  providerRetryBaseMs: 5,
  providerRetryMaxMs: 20,
};
const SEND = { send: true };

describe('campaign step: plan, send through provider adapters, append CampaignSent', () => {
  let t: TestEnv;
  let mail: LocalProvider;
  let sms: LocalProvider;
  let appender: CaptureAppender;
  let deps: CampaignStepDeps;

  const ledger = async (accountId: string) =>
    (
      await t.pool.query<{
        customer_id: string;
        status: string;
        tracking_id: string | null;
        url: string | null;
        last_error: string | null;
        last_failure_kind: string | null;
        send_attempts: number;
        event_appended_at: Date | null;
      }>(
        `select customer_id, status, tracking_id, url, last_error, last_failure_kind, send_attempts, event_appended_at
           from analytics.campaign_assignments where account_id = $1 order by assigned_at, customer_id`,
        [accountId],
      )
    ).rows;
  const enable = async (accountId: string, types: readonly string[]) => {
    for (const type of types)
      await t.pool.query(
        `insert into analytics.campaign_type_settings (account_id, campaign_type, enabled, changed_at)
         values ($1, $2, true, now())`,
        [accountId, type],
      );
  };
  const shop = async (
    name: string,
    storefrontDomain: string | null,
    providers = true,
    o: { types?: readonly string[]; sandbox?: boolean } = {},
  ) => {
    const { id } = await createAccount(t.db, { name, storefrontDomain, isSandbox: o.sandbox ?? false });
    await enable(id, o.types ?? CAMPAIGN_TYPES);
    if (providers) {
      await connectProvider(t.db, id, 'local-mail', 'email', mail.url);
      await connectProvider(t.db, id, 'local-sms', 'sms', sms.url);
    }
    return id;
  };
  const customer = async (
    accountId: string,
    c: Parameters<typeof insertCustomer>[2],
    state: 'Overdue' | 'Lapsed',
    isHoldout = false,
  ) => {
    const id = await insertCustomer(t, accountId, c);
    await insertScore(t, accountId, id, { asOf: AS_OF, lifecycleState: state, isHoldout });
    return id;
  };

  beforeAll(async () => {
    t = await createTestEnv('campaignstep');
    await prepareCampaignSchemas(t);
    mail = await startLocalProvider('/mail');
    sms = await startLocalProvider('/sms');
    appender = new CaptureAppender();
    deps = { pool: t.pool, appender, codec: t.codec, now: () => NOW };
  });
  afterAll(async () => {
    await mail.close();
    await sms.close();
    await t.close();
  });

  it('sends each audience member once, links to the storefront with utm parameters, and appends CampaignSent', async () => {
    const account = await shop('Tea', 'https://Tea.Example.com/');
    const a = await customer(account, { email: 'ada@example.com' }, 'Overdue');
    const b = await customer(account, { email: null, sms: true, phone: '+15550100001' }, 'Lapsed');
    await customer(account, {}, 'Overdue', true);

    const r = await runCampaignStep(config, deps, { accountId: account, taskId: 'task-1' }, SEND);
    expect(r).toMatchObject({
      status: 'done',
      reason: null,
      planned: 2,
      heldOut: 1,
      sent: 2,
      sendFailed: 0,
      eventsAppended: 2,
    });
    const rows = await ledger(account);
    const sentA = rows.find((x) => x.customer_id === a)!;
    const sentB = rows.find((x) => x.customer_id === b)!;
    expect(rows.map((x) => x.status).sort()).toEqual(['held_out', 'sent', 'sent']);

    expect(mail.requests).toHaveLength(1);
    const email = mail.requests[0]!;
    expect(email.headers['idempotency-key']).toBe(sentA.tracking_id);
    expect(email.body).toMatchObject({
      channel: 'email',
      to: 'ada@example.com',
      tracking_id: sentA.tracking_id,
      campaign_type: 'win_back',
    });
    const link = new URL(sentA.url!);
    expect(link.origin).toBe('https://tea.example.com');
    expect(Object.fromEntries(link.searchParams)).toEqual({
      utm_source: 'holdfast',
      utm_medium: 'email',
      utm_campaign: 'win_back',
      utm_content: sentA.tracking_id,
    });
    expect(String(email.body.text)).toContain(sentA.url);
    expect(email.body.headers).toMatchObject({
      'List-Unsubscribe': expect.stringMatching(
        /^<https:\/\/hf\.example\.com\/unsubscribe\/[\w-]+\.[\w-]+>$/,
      ),
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    });
    expect(String(email.body.html)).toContain(sentA.url!.replace(/&/g, '&#38;'));
    expect(sms.requests).toHaveLength(1);
    expect(sms.requests[0]!.body).toMatchObject({
      channel: 'sms',
      to: '+15550100001',
      tracking_id: sentB.tracking_id,
    });
    expect(String(sms.requests[0]!.body.body)).toMatch(
      /utm_medium=sms&utm_campaign=win_back&utm_content=hft_[0-9a-f]{24} Reply STOP to opt out\.$/,
    );
    // No discount code is ever created or offered.
    for (const req of [...mail.requests, ...sms.requests])
      expect(
        JSON.stringify({ ...req.body, headers: null }).replace(/\/unsubscribe\/[\w.-]+/g, ''),
      ).not.toMatch(/discount|coupon|promo|code/i);

    const events = await appender.decoded(t.codec);
    expect(appender.records.every((x) => x.topic === 'tstep-holdfast.campaigns' && x.key === account)).toBe(
      true,
    );
    expect(
      events
        .map((e) => e.value)
        .sort((x, y) =>
          'tracking_id' in x && 'tracking_id' in y ? x.tracking_id.localeCompare(y.tracking_id) : 0,
        ),
    ).toEqual(
      [sentA, sentB]
        .map((s) => ({
          metadata: expect.objectContaining({
            account_id: account,
            event_id: campaignSentEventId(s.tracking_id!),
          }),
          tracking_id: s.tracking_id,
          customer_id: s.customer_id,
          campaign_type: 'win_back',
          channel: s === sentA ? 'email' : 'sms',
          provider: s === sentA ? 'local-mail' : 'local-sms',
          url: s.url,
          sent_at: NOW.toISOString(),
          task_id: 'task-1',
        }))
        .sort((x, y) => x.tracking_id!.localeCompare(y.tracking_id!)),
    );

    // Run again at once: everyone is in cool-down, nothing is sent or appended twice.
    const again = await runCampaignStep(config, deps, { accountId: account, taskId: 'task-2' }, SEND);
    expect(again).toMatchObject({ status: 'done', planned: 0, heldOut: 0, sent: 0, eventsAppended: 0 });
    expect(mail.requests).toHaveLength(1);
    expect(appender.records).toHaveLength(2);

    // The dashboards' funnel, recounted at the end of each step: the ledger's decisions per type and status.
    const counted = await t.pool.query<{ campaign_type: string; status: string; decisions: number }>(
      `select campaign_type, status, decisions from analytics.campaign_decision_counts
        where account_id = $1 order by 1, 2`,
      [account],
    );
    const assigned = await t.pool.query<{ campaign_type: string; status: string; decisions: number }>(
      `select campaign_type, status, count(*)::int as decisions from analytics.campaign_assignments
        where account_id = $1 group by 1, 2 order by 1, 2`,
      [account],
    );
    expect(counted.rows).toEqual(assigned.rows);
    expect(counted.rows.find((r) => r.status === 'sent')?.decisions).toBe(2);
  });

  it('sends nothing without a storefront domain and records storefront_domain_missing', async () => {
    const account = await shop('No domain', null);
    await customer(account, {}, 'Overdue');
    const before = mail.requests.length;
    const r = await runCampaignStep(config, deps, { accountId: account, taskId: 'task-3' }, SEND);
    expect(r).toMatchObject({ status: 'failed', reason: 'storefront_domain_missing', planned: 0, sent: 0 });
    expect(mail.requests).toHaveLength(before);
    expect(await ledger(account)).toEqual([]);
    const { rows } = await t.pool.query(
      `select status, reason, task_id from analytics.campaign_runs where run_id = $1`,
      [r.runId],
    );
    expect(rows).toEqual([{ status: 'failed', reason: 'storefront_domain_missing', task_id: 'task-3' }]);
  });

  it('skips accounts without a provider, and a second step of an account while one runs', async () => {
    const bare = await shop('Bare', 'bare.example.com', false);
    expect(await runCampaignStep(config, deps, { accountId: bare, taskId: null }, SEND)).toMatchObject({
      status: 'skipped',
      reason: 'no_provider_connected',
    });
    const busy = await shop('Busy', 'busy.example.com');
    const lock = await tryLockAccount(t.pool, busy);
    try {
      expect(await runCampaignStep(config, deps, { accountId: busy, taskId: null }, SEND)).toMatchObject({
        status: 'skipped',
        reason: 'already_running',
      });
    } finally {
      await lock!.release();
    }
  });

  it('records provider failures; the next run retries them; a crash before the append is finished by the next run', async () => {
    const account = await shop('Flaky', 'flaky.example.com');
    const c = await customer(account, { email: 'flaky@example.com' }, 'Overdue');
    mail.status = 500;
    const failed = await runCampaignStep(config, deps, { accountId: account, taskId: null }, SEND);
    mail.status = 202;
    expect(failed).toMatchObject({ status: 'done', planned: 1, sent: 0, sendFailed: 1, eventsAppended: 0 });
    // Retried with backoff up to 3 attempts, then failed with the last error class and its kind.
    expect(await ledger(account)).toMatchObject([
      {
        customer_id: c,
        status: 'failed',
        last_error: 'provider_http_500',
        last_failure_kind: 'retriable',
        send_attempts: 3,
      },
    ]);

    appender.failNext = true;
    await expect(runCampaignStep(config, deps, { accountId: account, taskId: null }, SEND)).rejects.toThrow(
      'kafka unavailable',
    );
    const rows = await ledger(account);
    expect(rows[1]).toMatchObject({ status: 'sent', event_appended_at: null });
    const sends = mail.requests.length;
    const resumed = await runCampaignStep(config, deps, { accountId: account, taskId: null }, SEND);
    expect(resumed).toMatchObject({ status: 'done', planned: 0, sent: 0, eventsAppended: 1 });
    expect(mail.requests).toHaveLength(sends);
    const last = appender.records[appender.records.length - 1]!;
    expect((await t.codec.decode(last.value)).value).toMatchObject({ tracking_id: rows[1]!.tracking_id });
  });

  it('retries a retriable failure with backoff and records the attempts; a permanent one fails at once', async () => {
    const account = await shop('Retry', 'retry.example.com');
    const c = await customer(account, { email: 'retry@example.com' }, 'Overdue');
    mail.script.push(503, 429);
    const before = mail.requests.length;
    const r = await runCampaignStep(config, deps, { accountId: account, taskId: null }, SEND);
    expect(r).toMatchObject({ sent: 1, sendFailed: 0 });
    expect(mail.requests.length - before).toBe(3);
    // all three attempts carry the same idempotency key
    expect(new Set(mail.requests.slice(before).map((q) => q.headers['idempotency-key'])).size).toBe(1);
    expect(await ledger(account)).toMatchObject([
      {
        customer_id: c,
        status: 'sent',
        send_attempts: 3,
        last_error: 'provider_http_429',
        last_failure_kind: 'retriable',
      },
    ]);

    const refused = await shop('Refused', 'refused.example.com');
    await customer(refused, { email: 'refused@example.com' }, 'Overdue');
    mail.script.push(401);
    const before2 = mail.requests.length;
    expect(await runCampaignStep(config, deps, { accountId: refused, taskId: null }, SEND)).toMatchObject({
      sent: 0,
      sendFailed: 1,
    });
    expect(mail.requests.length - before2).toBe(1);
    expect(await ledger(refused)).toMatchObject([
      { status: 'failed', send_attempts: 1, last_error: 'provider_http_401', last_failure_kind: 'permanent' },
    ]);
  });

  it('takes a provider failing again and again as down: its remaining messages stay planned for the next run', async () => {
    const account = await shop('Outage', 'outage.example.com');
    for (let i = 0; i < 5; i++) await customer(account, { email: `outage${i}@example.com` }, 'Overdue');
    mail.status = 503;
    const before = mail.requests.length;
    const r = await runCampaignStep(
      { ...config, providerBreakerFailures: 2, sendConcurrency: 1 },
      deps,
      { accountId: account, taskId: null },
      SEND,
    );
    mail.status = 202;
    expect(r).toMatchObject({
      status: 'done',
      reason: 'sends_deferred_provider_down',
      planned: 5,
      sendFailed: 2,
    });
    expect(mail.requests.length - before).toBe(2 * 3);
    expect((await ledger(account)).map((x) => x.status).sort()).toEqual([
      'failed',
      'failed',
      'planned',
      'planned',
      'planned',
    ]);
    // The provider is back: the next run sends the 3 left planned, and plans and sends the 2 that
    // failed (a failed send counts neither for the cool-down nor the cap).
    const next = await runCampaignStep(config, deps, { accountId: account, taskId: null }, SEND);
    expect(next).toMatchObject({ status: 'done', reason: null, planned: 2, sent: 5 });
  });

  it('sends no email without a public URL for its unsubscribe link', async () => {
    const account = await shop('No public URL', 'nourl.example.com');
    await customer(account, { email: 'nourl@example.com' }, 'Overdue');
    const before = mail.requests.length;
    const r = await runCampaignStep(
      { ...config, publicUrl: null },
      deps,
      { accountId: account, taskId: null },
      SEND,
    );
    expect(r).toMatchObject({ sent: 0, sendFailed: 1 });
    expect(mail.requests).toHaveLength(before);
    expect(await ledger(account)).toMatchObject([
      { status: 'failed', send_attempts: 0, last_error: 'unsubscribe_url_missing' },
    ]);
  });

  it('does not send a planned message a crashed run left when consent was withdrawn since', async () => {
    const account = await shop('Withdrawn', 'withdrawn.example.com');
    const c = await customer(account, { email: 'gone@example.com' }, 'Overdue');
    await t.pool.query(
      `insert into analytics.campaign_assignments (assignment_id, account_id, run_id, campaign_type, customer_id, arm,
         channel, provider, status, tracking_id, assigned_at)
       values (gen_random_uuid(), $1, gen_random_uuid(), 'win_back', $2, 'treated', 'email', 'local-mail', 'planned',
         'hft_000000000000000000000001', $3)`,
      [account, c, NOW],
    );
    await t.pool.query(`update read_models.customers set consent_suppressed = true where customer_id = $1`, [
      c,
    ]);
    const before = mail.requests.length;
    const r = await runCampaignStep(config, deps, { accountId: account, taskId: null }, SEND);
    expect(r).toMatchObject({ planned: 0, sent: 0, sendFailed: 1 });
    expect(mail.requests).toHaveLength(before);
    expect(await ledger(account)).toMatchObject([{ status: 'failed', last_error: 'consent_withdrawn' }]);
  });

  it('given an API sync (send: false), then nothing is decided or sent, and attribution and lift still run', async () => {
    const account = await shop('Synced', 'synced.example.com');
    await customer(account, { email: 'sync@example.com' }, 'Overdue');
    const before = mail.requests.length;
    const r = await runCampaignStep(
      config,
      deps,
      { accountId: account, taskId: 'api-task' },
      { send: false },
    );
    expect(r).toMatchObject({ status: 'skipped', reason: 'trigger_does_not_send', planned: 0, sent: 0 });
    expect(mail.requests).toHaveLength(before);
    expect(await ledger(account)).toEqual([]);
    const { rows } = await t.pool.query(
      `select sends_enabled, status from analytics.campaign_runs where run_id = $1`,
      [r.runId],
    );
    expect(rows).toEqual([{ sends_enabled: false, status: 'skipped' }]);
  });

  it('given no campaign type enabled (the default), then nothing is sent', async () => {
    const account = await shop('Off', 'off.example.com', true, { types: [] });
    await customer(account, { email: 'off@example.com' }, 'Overdue');
    const before = mail.requests.length;
    const r = await runCampaignStep(config, deps, { accountId: account, taskId: null }, SEND);
    expect(r).toMatchObject({ status: 'skipped', reason: 'no_campaign_type_enabled', planned: 0 });
    expect(mail.requests).toHaveLength(before);
    expect(await ledger(account)).toEqual([]);
  });

  it('given a sandbox account, then sends are simulated: recorded, never sent, never appended', async () => {
    const account = await shop('Sandbox', 'sandbox.example.com', false, { sandbox: true });
    const c = await customer(account, { email: 'sand@example.com' }, 'Overdue');
    const h = await customer(account, { email: 'hold@example.com' }, 'Lapsed', true);
    const mails = mail.requests.length;
    const appended = appender.records.length;
    const r = await runCampaignStep(config, deps, { accountId: account, taskId: null }, SEND);
    expect(r).toMatchObject({
      status: 'done',
      sandboxSimulated: 1,
      heldOut: 1,
      planned: 0,
      sent: 0,
      eventsAppended: 0,
    });
    expect(mail.requests).toHaveLength(mails);
    expect(appender.records).toHaveLength(appended);
    const rows = await ledger(account);
    expect(rows.find((x) => x.customer_id === c)).toMatchObject({
      status: 'sandbox_simulated',
      event_appended_at: null,
    });
    expect(rows.find((x) => x.customer_id === h)).toMatchObject({ status: 'held_out' });
    const { rows: runs } = await t.pool.query(
      `select sandbox_simulated, held_out, sent from analytics.campaign_runs where run_id = $1`,
      [r.runId],
    );
    expect(runs).toEqual([{ sandbox_simulated: 1, held_out: 1, sent: 0 }]);
  });
});
