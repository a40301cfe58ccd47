import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '@holdfast/control-plane';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import { insertCustomer, insertOrder, prepareCampaignSchemas } from '../campaigns/test-support/seed.js';
import { recomputeAttributions } from '../../src/attribution/attribute-orders.js';
import { DEFAULT_READ_MODEL_SCHEMA } from '@holdfast/read-models';

const DAY = 86_400_000;
const T = Date.parse('2025-03-10T12:00:00.000Z');
const at = (days: number): Date => new Date(T + days * DAY);

describe('attribution: exact by utm_content, else 7-day last touch; only sends of ours', () => {
  let t: TestEnv;
  let account: string;

  /** A send in the ledger (status sent) — or only in read_models.campaign_sends (projected from the log). */
  const send = async (
    customerId: string,
    sentAt: Date,
    o: { type?: string; channel?: string; readModelOnly?: boolean } = {},
  ) => {
    const tracking = `hft_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
    const type = o.type ?? 'win_back';
    const channel = o.channel ?? 'email';
    const url = `https://shop.example.com/?utm_source=holdfast&utm_medium=${channel}&utm_campaign=${type}&utm_content=${tracking}`;
    if (o.readModelOnly)
      await t.pool.query(
        `insert into read_models.campaign_sends (tracking_id, account_id, customer_id, campaign_type, channel, provider,
           url, sent_at, event_id, received_at)
         values ($1, $2, $3, $4, $5, 'p', $6, $7, gen_random_uuid()::text, $7)`,
        [tracking, account, customerId, type, channel, url, sentAt],
      );
    else
      await t.pool.query(
        `insert into analytics.campaign_assignments (assignment_id, account_id, run_id, campaign_type, customer_id, arm,
           channel, provider, status, tracking_id, url, assigned_at, sent_at)
         values (gen_random_uuid(), $1, gen_random_uuid(), $2, $3, 'treated', $4, 'p', 'sent', $5, $6, $7, $7)`,
        [account, type, customerId, channel, tracking, url, sentAt],
      );
    return { tracking, url };
  };
  const attributions = async (accountId: string) =>
    (
      await t.pool.query<{
        order_id: string;
        tracking_id: string;
        campaign_type: string;
        channel: string;
        method: string;
        net_revenue: number;
      }>(
        `select order_id, tracking_id, campaign_type, channel, method, net_revenue
           from analytics.attributions where account_id = $1 order by order_id`,
        [accountId],
      )
    ).rows;

  beforeAll(async () => {
    t = await createTestEnv('attribution');
    await prepareCampaignSchemas(t);
    account = (await createAccount(t.db, { name: 'Shop', storefrontDomain: 'shop.example.com' })).id;
  });
  afterAll(() => t.close());

  it('attributes exactly, by last touch, and never to campaigns of the merchant’s own stack', async () => {
    const alice = await insertCustomer(t, account);
    const bob = await insertCustomer(t, account);
    const carol = await insertCustomer(t, account);
    const dave = await insertCustomer(t, account);
    const a1 = await send(alice, at(-20), { type: 'vip', channel: 'sms' });
    const a2 = await send(alice, at(-3), { type: 'win_back' });
    const a3 = await send(alice, at(-1), { type: 'replenishment', readModelOnly: true });
    await send(bob, at(-8));
    const c1 = await send(carol, at(-6.5));

    // exact: the landing URL of a 20-day-old SMS send, bought by someone else entirely (a forwarded link)
    await insertOrder(t, account, {
      orderId: 'o1-exact-url',
      customerId: dave,
      orderDate: at(0),
      amount: 80,
      refunded: 30,
      source: a1.url,
    });
    // exact: utm_content inside free text, upper case
    await insertOrder(t, account, {
      orderId: 'o2-exact-text',
      customerId: bob,
      orderDate: at(0),
      source: `email utm_content=${a2.tracking.toUpperCase()}`,
    });
    // last touch: the latest of alice's sends in the 7 days before (a3, known from the read model only)
    await insertOrder(t, account, {
      orderId: 'o3-last-touch',
      customerId: alice,
      orderDate: at(0),
      amount: 50,
      source: 'organic',
    });
    // last touch: a send 6.5 days before is inside the window
    await insertOrder(t, account, {
      orderId: 'o4-last-touch-edge',
      customerId: carol,
      orderDate: at(0),
      source: null,
    });
    // none: bob's only send is 8 days old
    await insertOrder(t, account, {
      orderId: 'o5-too-old',
      customerId: bob,
      orderDate: at(0.5),
      source: 'email',
    });
    // none: the merchant's own campaign (utm parameters, not ours), although alice was messaged 2 days before
    await insertOrder(t, account, {
      orderId: 'o6-merchant-campaign',
      customerId: alice,
      orderDate: at(0),
      source: 'https://shop.example.com/?utm_source=klaviyo&utm_medium=email&utm_content=spring-sale',
    });
    // none: cancelled
    await insertOrder(t, account, {
      orderId: 'o7-cancelled',
      customerId: alice,
      orderDate: at(0),
      source: a2.url,
      cancelledAt: at(1),
    });
    // none: a send after the order
    await insertOrder(t, account, { orderId: 'o8-before-send', customerId: carol, orderDate: at(-7) });

    expect(
      await recomputeAttributions(t.pool, {
        accountId: account,
        readModelSchema: DEFAULT_READ_MODEL_SCHEMA,
        now: at(2),
      }),
    ).toBe(4);
    expect(await attributions(account)).toEqual([
      {
        order_id: 'o1-exact-url',
        tracking_id: a1.tracking,
        campaign_type: 'vip',
        channel: 'sms',
        method: 'exact',
        net_revenue: 50,
      },
      {
        order_id: 'o2-exact-text',
        tracking_id: a2.tracking,
        campaign_type: 'win_back',
        channel: 'email',
        method: 'exact',
        net_revenue: 100,
      },
      {
        order_id: 'o3-last-touch',
        tracking_id: a3.tracking,
        campaign_type: 'replenishment',
        channel: 'email',
        method: 'last_touch',
        net_revenue: 50,
      },
      {
        order_id: 'o4-last-touch-edge',
        tracking_id: c1.tracking,
        campaign_type: 'win_back',
        channel: 'email',
        method: 'last_touch',
        net_revenue: 100,
      },
    ]);
  });

  it('is deterministic and per account: a recompute gives the same rows and touches no other account', async () => {
    const before = await attributions(account);
    const other = (await createAccount(t.db, { name: 'Other' })).id;
    expect(
      await recomputeAttributions(t.pool, {
        accountId: other,
        readModelSchema: DEFAULT_READ_MODEL_SCHEMA,
        now: at(3),
      }),
    ).toBe(0);
    expect(await attributions(account)).toEqual(before);
    await t.pool.query(
      `update read_models.orders set refunded_amount = 10 where account_id = $1 and order_id = 'o3-last-touch'`,
      [account],
    );
    expect(
      await recomputeAttributions(t.pool, {
        accountId: account,
        readModelSchema: DEFAULT_READ_MODEL_SCHEMA,
        now: at(3),
      }),
    ).toBe(4);
    const after = await attributions(account);
    expect(after).toEqual(
      before.map((r) => (r.order_id === 'o3-last-touch' ? { ...r, net_revenue: 40 } : r)),
    );
    // Two attribution runs over the same orders: one recovery.attributed per attributed order, with
    // the first run's figures; the other account announced nothing.
    const { rows } = await t.pool.query<{
      account_id: string;
      subject: string;
      data: { net_revenue: number };
    }>(
      `select account_id, subject, data from control.outbound_events
        where account_id = any($1::uuid[]) and event_type = 'recovery.attributed' order by subject`,
      [[account, other]],
    );
    expect(rows.map((r) => r.subject)).toEqual(after.map((r) => `order:${r.order_id}`).sort());
    expect(new Set(rows.map((r) => r.account_id))).toEqual(new Set([account]));
    const o3 = rows.find((r) => r.subject === 'order:o3-last-touch')!;
    expect(o3.data.net_revenue).toBe(Number(before.find((r) => r.order_id === 'o3-last-touch')!.net_revenue));
  });
});
