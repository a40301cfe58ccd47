// customer.churned end to end, each occurrence delivered once: the real recompute moves a customer
// into Lapsed, is run again (still Lapsed), goes back (a recompute as of an earlier day: the customer
// is not Lapsed) and forward again (the same lapse, the same purchases), and the real dispatcher
// delivers to a real HTTP receiver: it counts ONE customer.churned, signed, with
// customer_external_id. A customer first scored as Lapsed is not announced; a subscription that did
// not choose the type gets nothing.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, createWebhookSubscription } from '@holdfast/control-plane';
import { migrateDispatcher } from '@holdfast/migrations';
import { startDispatcher, type RunningDispatcher } from '@holdfast/dispatcher';
import { DEFAULT_READ_MODEL_SCHEMA } from '@holdfast/read-models';
import { recomputeAccount } from '@holdfast/recompute';
import {
  createTestEnv,
  type TestEnv,
  startScriptedReceiver,
  until,
  type ScriptedReceiver,
} from '@holdfast/testing';
import {
  insertCustomers,
  insertOrders,
  prepareSchemas,
  type FixtureOrder,
} from '../services/recompute/test/scoring/testing/read-model-fixture.js';
import { schemaErrors } from '@holdfast/testing/services';

const DAY = 86_400_000;
const LAST = Date.parse('2026-06-01T12:00:00Z');

let t: TestEnv;
let dispatcher: RunningDispatcher;
const receivers: ScriptedReceiver[] = [];

beforeAll(async () => {
  t = await createTestEnv('outbound-events');
  await prepareSchemas(t);
  await migrateDispatcher(t.db as unknown as Kysely<unknown>);
}, 120_000);

afterAll(async () => {
  await dispatcher?.stop();
  for (const r of receivers) await r.close();
  await t?.close();
});

const stateOf = async (accountId: string, customerId: string) =>
  (
    await t.pool.query<{ lifecycle_state: string }>(
      'select lifecycle_state from analytics.customer_scores where account_id = $1 and customer_id = $2',
      [accountId, customerId],
    )
  ).rows[0]?.lifecycle_state;

describe('customer.churned', () => {
  it('is delivered once however often the recompute finds the same lapse, signed, with customer_external_id', async () => {
    const { id: accountId } = await createAccount(t.db, { name: 'Churn shop' });
    const [x, y] = [randomUUID(), randomUUID()];
    // X buys every 30 days up to LAST; Y bought twice long before (Lapsed from its first scores).
    const orders: FixtureOrder[] = [
      ...Array.from({ length: 6 }, (_, i) => ({
        customerId: x,
        orderDate: new Date(LAST - (5 - i) * 30 * DAY),
        amount: 20,
      })),
      { customerId: y, orderDate: new Date(LAST - 700 * DAY), amount: 30 },
      { customerId: y, orderDate: new Date(LAST - 660 * DAY), amount: 30 },
    ];
    await insertOrders(t, accountId, orders);
    await insertCustomers(
      t,
      accountId,
      new Map([
        [x, 'cust-x'],
        [y, 'cust-y'],
      ]),
    );
    const chosen = await receiver();
    const other = await receiver();
    const sub = await createWebhookSubscription(t.db, accountId, chosen.url, undefined, ['customer.churned']);
    await createWebhookSubscription(t.db, accountId, other.url, undefined, [
      'campaign.sent',
      'sync.completed',
    ]);

    const deps = { pool: t.pool, readModelSchema: DEFAULT_READ_MODEL_SCHEMA };
    const early = new Date(LAST + 3 * DAY);
    const late = new Date(LAST + 400 * DAY);
    await recomputeAccount(deps, accountId, early);
    expect(await stateOf(accountId, x)).not.toBe('Lapsed');
    expect(await stateOf(accountId, y)).toBe('Lapsed');
    await recomputeAccount(deps, accountId, late); // X moves into Lapsed
    expect(await stateOf(accountId, x)).toBe('Lapsed');
    await recomputeAccount(deps, accountId, late); // the same recompute again
    await recomputeAccount(deps, accountId, new Date(late.getTime() + 10 * DAY)); // still Lapsed
    await recomputeAccount(deps, accountId, early); // back: X not Lapsed
    expect(await stateOf(accountId, x)).not.toBe('Lapsed');
    await recomputeAccount(deps, accountId, late); // and into Lapsed again: the same lapse

    const { rows } = await t.pool.query(
      `select subject from control.outbound_events where account_id = $1 and event_type = 'customer.churned'`,
      [accountId],
    );
    expect(rows).toEqual([{ subject: `customer:${x}:purchases:6` }]);

    dispatcher = await startDispatcher(
      {
        topicPrefix: t.topicPrefix,
        groupId: `${t.topicPrefix}dispatcher`,
        pollIntervalMs: 50,
        sessionTimeoutMs: 6_000,
      },
      { pool: t.pool, kafka: t.kafka, codec: t.codec },
    );
    const got = await until(
      'the delivery',
      () => Promise.resolve(chosen.requests[0]),
      (r) => r !== undefined,
    );
    await new Promise((r) => setTimeout(r, 500)); // time for a second delivery, were there one
    await dispatcher.pollOnce();
    expect(chosen.requests).toHaveLength(1);
    expect(other.requests).toHaveLength(0);
    expect(got.headers['x-service-event']).toBe('customer.churned');
    const body = new Webhook(sub.secret.slice('whsec_'.length)).verify(
      got.body,
      got.headers as Record<string, string>,
    );
    expect(schemaErrors('CustomerChurnedEvent', body)).toEqual([]);
    expect(body).toEqual({
      event: 'customer.churned',
      data: expect.objectContaining({
        customer_external_id: 'cust-x',
        customer_id: x,
        lifecycle_state: 'Lapsed',
        purchases: 6,
        scored_at: late.toISOString(),
      }),
    });
  });
});

async function receiver(): Promise<ScriptedReceiver> {
  const r = await startScriptedReceiver([200]);
  receivers.push(r);
  return r;
}
