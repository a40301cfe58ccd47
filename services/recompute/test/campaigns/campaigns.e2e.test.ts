// End to end, on the real stack: ingested orders (Kafka) → projector → scores → audience → send to a
// local provider → CampaignSent → dispatcher → signed campaign.sent to a verifying receiver (and to one
// that fails twice, retried on the spec's schedule by an injected clock) → a later order carrying the
// utm_content → exact attribution → lift report.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectProvider, createAccount, createWebhookSubscription } from '@holdfast/control-plane';
import { TransactionalAppender } from '@holdfast/kafka';
import { silentLogger } from '@holdfast/platform';
import {
  createTestEnv,
  type TestEnv,
  spawnExampleReceiver,
  type ExampleReceiver,
  mulberry32,
} from '@holdfast/testing';
import { startProjector, type RunningProjector } from '@holdfast/projections';
import { startDispatcher, type RunningDispatcher } from '@holdfast/dispatcher';
// The documented example receiver, run as a process (dispatcher test support, not its public API).
import { recomputeAccount } from '../../src/scoring/recompute-account.js';
import { runCampaignStep, type CampaignStepDeps } from '../../src/campaigns/campaign-step.js';
import { appendCommerce, customerUpserted, orderUpserted, waitFor } from './test-support/commerce-events.js';
import { startFlakyReceiver } from './test-support/flaky-receiver.js';
import { startLocalProvider, type LocalProvider } from './test-support/local-provider.js';
import { prepareCampaignSchemas } from './test-support/seed.js';
import { DEFAULT_READ_MODEL_SCHEMA } from '@holdfast/read-models';

const DAY = 86_400_000;
const MIN = 60_000;
const NOW = Date.parse('2025-06-01T02:00:00.000Z');
const CUSTOMERS = 300;

describe('campaigns end to end', () => {
  let t: TestEnv;
  let clock = NOW;
  const now = (): Date => new Date(clock);
  let projector: RunningProjector;
  let dispatcher: RunningDispatcher;
  let appender: TransactionalAppender;
  let provider: LocalProvider;
  let verifier: ExampleReceiver;
  let flaky: Awaited<ReturnType<typeof startFlakyReceiver>>;
  let flakySecret = '';
  let account: string;
  const count = async (sql: string): Promise<number> =>
    (await t.pool.query<{ n: number }>(sql, [account])).rows[0]!.n;

  beforeAll(async () => {
    t = await createTestEnv('campaignse2e');
    await prepareCampaignSchemas(t);
    account = (await createAccount(t.db, { name: 'Tea e2e', storefrontDomain: 'tea.example.com' })).id;
    provider = await startLocalProvider('/v1/email');
    await connectProvider(t.db, account, 'local-mail', 'email', provider.url);
    // Campaign types are off until an operator enables them (holdfast campaigns enable).
    for (const type of ['win_back', 'replenishment', 'vip'])
      await t.pool.query(
        `insert into analytics.campaign_type_settings (account_id, campaign_type, enabled, changed_at) values ($1, $2, true, now())`,
        [account, type],
      );
    const first = await createWebhookSubscription(t.db, account, 'http://127.0.0.1:9/placeholder');
    verifier = await spawnExampleReceiver(first.secret);
    await t.pool.query(`update control.webhook_subscriptions set url = $2 where id = $1`, [
      first.id,
      verifier.url,
    ]);
    flaky = await startFlakyReceiver(() => flakySecret, 2);
    flakySecret = (await createWebhookSubscription(t.db, account, flaky.url)).secret;
    projector = await startProjector(
      {
        topicPrefix: t.topicPrefix,
        readSchema: DEFAULT_READ_MODEL_SCHEMA,
        groupId: `${t.topicPrefix}projector`,
        sessionTimeoutMs: 6_000,
      },
      { pool: t.pool, kafka: t.kafka, codec: t.codec, logger: silentLogger },
    );
    dispatcher = await startDispatcher(
      { topicPrefix: t.topicPrefix, pollIntervalMs: 100, sessionTimeoutMs: 6_000 },
      { pool: t.pool, kafka: t.kafka, codec: t.codec, now },
    );
    appender = await TransactionalAppender.create(t.kafka, { name: `${t.topicPrefix}recompute`, size: 1 });
  });
  afterAll(async () => {
    await dispatcher?.stop();
    await projector?.stop();
    await appender?.close();
    await verifier?.close();
    await flaky?.close();
    await provider?.close();
    await t?.close();
  });

  it('goes from ingested orders to a send, a signed delivery, an exactly attributed order and a lift report', async () => {
    // 300 customers with varied rhythms (1–6 orders, 10–90 days apart, the last 5–300 days ago).
    const rand = mulberry32(7);
    const ingestedAt = new Date(NOW - DAY).toISOString();
    const events = [];
    for (let i = 0; i < CUSTOMERS; i++) {
      const ext = `c-${i}`;
      events.push({
        type: 'CustomerUpserted' as const,
        value: customerUpserted(account, ext, `c${i}@example.com`, ingestedAt),
      });
      const [orders, gap, last] = [
        1 + Math.floor(rand() * 6),
        10 + Math.floor(rand() * 80),
        5 + Math.floor(rand() * 300),
      ];
      for (let k = 0; k < orders; k++) {
        const daysAgo = last + (orders - 1 - k) * gap;
        const order = {
          order_id: `o-${i}-${k}`,
          customer_id: ext,
          order_date: new Date(NOW - daysAgo * DAY).toISOString(),
          order_amount: 20 + Math.floor(rand() * 60),
        };
        events.push({ type: 'OrderUpserted' as const, value: orderUpserted(account, order, ingestedAt) });
      }
    }
    const ORDERS = events.length - CUSTOMERS;
    await appendCommerce(t, account, events);
    await waitFor('the projector to fold the orders', async () =>
      (await count(`select count(*)::int as n from read_models.orders where account_id = $1`)) === ORDERS
        ? true
        : undefined,
    );

    // The recompute of the account: scores, then the campaign step.
    const scored = await recomputeAccount(
      { pool: t.pool, readModelSchema: DEFAULT_READ_MODEL_SCHEMA },
      account,
      now(),
    );
    expect(scored.customers).toBe(CUSTOMERS);
    const states = (
      await t.pool.query<{ lifecycle_state: string; n: number }>(
        `select lifecycle_state, count(*)::int as n from analytics.customer_scores where account_id = $1 group by 1`,
        [account],
      )
    ).rows;
    const deps: CampaignStepDeps = { pool: t.pool, appender, codec: t.codec, now };
    const step = await runCampaignStep(
      {
        topicPrefix: t.topicPrefix,
        readModelSchema: DEFAULT_READ_MODEL_SCHEMA,
        publicUrl: 'https://hf.example.com',
      },
      deps,
      {
        accountId: account,
        taskId: 'e2e-task',
      },
      { send: true },
    );
    const holdout = await count(
      `select count(*)::int as n from analytics.campaign_assignments where account_id = $1 and arm = 'holdout'`,
    );
    const winBack = await count(
      `select count(*)::int as n from analytics.campaign_assignments where account_id = $1 and campaign_type = 'win_back'`,
    );
    const pastDue = states
      .filter((r) => ['Overdue', 'Lapsed'].includes(r.lifecycle_state))
      .reduce((a, r) => a + r.n, 0);
    expect(winBack, JSON.stringify(states)).toBe(pastDue);
    expect(winBack).toBeGreaterThan(100);
    expect(holdout).toBeGreaterThanOrEqual(2);
    expect(step).toMatchObject({ status: 'done', heldOut: holdout, sendFailed: 0 });
    expect(step.sent).toBe(step.planned);
    expect(step.eventsAppended).toBe(step.planned);
    expect(provider.requests).toHaveLength(step.planned);
    const sends = (
      await t.pool.query<{ tracking_id: string; url: string; customer_id: string; campaign_type: string }>(
        `select tracking_id, url, customer_id, campaign_type from analytics.campaign_assignments
          where account_id = $1 and status = 'sent' order by campaign_type = 'win_back' desc, tracking_id`,
        [account],
      )
    ).rows;
    expect(new Set(provider.requests.map((r) => r.body.tracking_id))).toEqual(
      new Set(sends.map((s) => s.tracking_id)),
    );

    // The projector folds the CampaignSent records into read_models.campaign_sends.
    await waitFor('campaign_sends', async () =>
      (await count(`select count(*)::int as n from read_models.campaign_sends where account_id = $1`)) ===
      sends.length
        ? true
        : undefined,
    );

    // The dispatcher delivers campaign.sent, signed, to every subscription: the example receiver verifies.
    const lines = await verifier.waitForLines(sends.length, 60_000);
    expect(
      lines.every((l) => l.verified === true && l.event === 'campaign.sent' && l.duplicate === false),
    ).toBe(true);
    expect(new Set(lines.map((l) => (l.data as { tracking_id: string }).tracking_id))).toEqual(
      new Set(sends.map((s) => s.tracking_id)),
    );
    expect(lines.every((l) => (l.data as { provider: string }).provider === 'local-mail')).toBe(true);

    // The flaky receiver fails each delivery twice; retries come 15 and then 30 minutes later.
    await waitFor('first attempts recorded', async () =>
      (await count(
        `select count(*)::int as n from dispatcher.deliveries d join control.webhook_subscriptions s on s.id = d.subscription_id
          where d.account_id = $1 and s.url like '%/flaky' and d.attempts = 1`,
      )) === sends.length
        ? true
        : undefined,
    );
    clock = NOW + 14 * MIN;
    expect((await dispatcher.pollOnce()).attempted).toBe(0);
    clock = NOW + 15 * MIN;
    expect(await dispatcher.pollOnce()).toMatchObject({
      attempted: sends.length,
      retryScheduled: sends.length,
    });
    clock = NOW + 45 * MIN;
    expect(await dispatcher.pollOnce()).toMatchObject({ attempted: sends.length, delivered: sends.length });
    const one = flaky.attempts.filter((a) => a.delivery === flaky.attempts[0]!.delivery);
    expect(one.map((a) => [a.status, a.verified])).toEqual([
      [500, true],
      [500, true],
      [200, true],
    ]);
    const { rows: timeline } = await t.pool.query<{ attempted_at: Date; status_code: number }>(
      `select attempted_at, status_code from dispatcher.delivery_attempts where delivery_id = $1 order by attempt`,
      [one[0]!.delivery],
    );
    expect(timeline.map((a) => [a.attempted_at.getTime() - NOW, a.status_code])).toEqual([
      [0, 500],
      [15 * MIN, 500],
      [45 * MIN, 200],
    ]);

    // Two days later one customer buys through the link: the order's source is the landing URL.
    const buyer = sends[0]!;
    const {
      rows: [ext],
    } = await t.pool.query<{ external_id: string }>(
      `select external_id from read_models.customers where account_id = $1 and customer_id = $2`,
      [account, buyer.customer_id],
    );
    const later = {
      order_id: 'o-after-campaign',
      customer_id: ext!.external_id,
      order_date: new Date(NOW + 2 * DAY).toISOString(),
      order_amount: 90,
      source: buyer.url,
    };
    await appendCommerce(t, account, [
      { type: 'OrderUpserted', value: orderUpserted(account, later, new Date(NOW + 2 * DAY).toISOString()) },
    ]);
    await waitFor('the later order', async () =>
      (await count(`select count(*)::int as n from read_models.orders where account_id = $1`)) === ORDERS + 1
        ? true
        : undefined,
    );

    // The next recompute (three days on): customers who became eligible since are messaged, nobody gets
    // the same campaign twice (cool-down), and the order is attributed exactly.
    clock = NOW + 3 * DAY;
    await recomputeAccount({ pool: t.pool, readModelSchema: DEFAULT_READ_MODEL_SCHEMA }, account, now());
    const next = await runCampaignStep(
      {
        topicPrefix: t.topicPrefix,
        readModelSchema: DEFAULT_READ_MODEL_SCHEMA,
        publicUrl: 'https://hf.example.com',
      },
      deps,
      {
        accountId: account,
        taskId: 'e2e-task-2',
      },
      { send: true },
    );
    expect(next).toMatchObject({ status: 'done', sendFailed: 0, attributions: 1 });
    expect(next.planned).toBeLessThan(step.planned / 10);
    expect(
      await count(
        `select count(*)::int as n from (select 1 from analytics.campaign_assignments where account_id = $1
          group by customer_id, campaign_type having count(*) > 1) x`,
      ),
    ).toBe(0);
    const { rows: attributed } = await t.pool.query(
      `select order_id, tracking_id, campaign_type, channel, method, net_revenue from analytics.attributions where account_id = $1`,
      [account],
    );
    expect(attributed).toEqual([
      {
        order_id: 'o-after-campaign',
        tracking_id: buyer.tracking_id,
        campaign_type: 'win_back',
        channel: 'email',
        method: 'exact',
        net_revenue: 90,
      },
    ]);
    const { rows: reports } = await t.pool.query(
      `select * from analytics.lift_reports
        where account_id = $1 and period_start = '2025-06-01T00:00:00Z' and campaign_type = 'win_back'`,
      [account],
    );
    expect(reports).toHaveLength(1);
    const winBackHoldout = await count(
      `select count(*)::int as n from analytics.campaign_assignments where account_id = $1 and arm = 'holdout' and status = 'held_out' and campaign_type = 'win_back'`,
    );
    // Intent to treat: every selected non-holdout customer of the period (all were sent here).
    const winBackSent = await count(
      `select count(distinct customer_id)::int as n from analytics.campaign_assignments where account_id = $1
          and arm = 'treated' and status in ('planned', 'sent', 'failed', 'sandbox_simulated') and campaign_type = 'win_back'`,
    );
    expect(reports[0]).toMatchObject({
      campaign_type: 'win_back',
      treated_customers: winBackSent,
      holdout_customers: winBackHoldout,
      holdout_revenue_per_customer: 0,
      billable_revenue: 0,
      computed_at: now(),
    });
    expect(reports[0].treated_revenue_per_customer).toBeCloseTo(90 / winBackSent, 9);
    expect(reports[0].lift).toBeCloseTo(90 / winBackSent, 9);
  });
});
