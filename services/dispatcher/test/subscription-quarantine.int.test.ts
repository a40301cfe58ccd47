// A poison subscription (its signing secret sealed under a master key this dispatcher lacks, as after
// a master key removed too early) is quarantined: its deliveries are parked with the reason, no
// attempt is sent, and the poll goes on delivering everyone else's. Lifting the quarantine resumes it.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, createWebhookSubscription, rotateWebhookSecret } from '@holdfast/control-plane';
import { listDeliveries, listQuarantined, unquarantineSubscription } from '@holdfast/webhook-deliveries';
import { parseSecretsKeys, SecretsKeyring } from '@holdfast/secrets';
import { createMetricsRegistry, type Logger } from '@holdfast/platform';
import {
  createTestEnv,
  type TestEnv,
  appendCampaignSent,
  campaignSent,
  startScriptedReceiver,
  until,
  type ScriptedReceiver,
} from '@holdfast/testing';
import { DispatcherMetrics } from '../src/metrics.js';
import { startDispatcher, type RunningDispatcher } from '../src/start-dispatcher.js';

const keyring = (id: string) =>
  new SecretsKeyring(parseSecretsKeys(`${id}:${randomBytes(32).toString('base64')}`));

let t: TestEnv;
let dispatcher: RunningDispatcher;
const receivers: ScriptedReceiver[] = [];
const registry = createMetricsRegistry('dispatcher-quarantine-test');
const current = keyring('k1');
const gone = keyring('gone');
const errors: { msg: string; ctx: Record<string, unknown> | undefined }[] = [];
const logger: Logger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: (msg, ctx) => void errors.push({ msg, ctx }),
  child: () => logger,
};

beforeAll(async () => {
  t = await createTestEnv('dispquarantine');
  const metrics = new DispatcherMetrics(registry);
  metrics.watchBacklog(registry, t.pool);
  dispatcher = await startDispatcher(
    { topicPrefix: t.topicPrefix, pollIntervalMs: 100, timeoutMs: 2_000, sessionTimeoutMs: 6_000 },
    { pool: t.pool, kafka: t.kafka, codec: t.codec, metrics, keyring: current, logger },
  );
});
afterAll(async () => {
  await dispatcher?.stop();
  for (const r of receivers) await r.close();
  await t?.close();
});

const trackingId = (body: string): string =>
  (JSON.parse(body) as { data: { tracking_id: string } }).data.tracking_id;

const receiver = async () => {
  const r = await startScriptedReceiver([200]);
  receivers.push(r);
  return r;
};

describe('a poison subscription on the real stack', () => {
  it('is quarantined with the reason while another account’s deliveries arrive; unquarantine resumes it', async () => {
    const poisonReceiver = await receiver();
    const healthyReceiver = await receiver();
    const { id: poisonAccount } = await createAccount(t.db, { name: 'Poisoned shop' });
    const { id: healthyAccount } = await createAccount(t.db, { name: 'Healthy shop' });
    const poison = await createWebhookSubscription(t.db, poisonAccount, poisonReceiver.url, gone);
    await createWebhookSubscription(t.db, healthyAccount, healthyReceiver.url, current);

    // The poison one first in the same batch: before, its secret failed the whole claim.
    const first = campaignSent(poisonAccount);
    const healthy = [campaignSent(healthyAccount), campaignSent(healthyAccount)];
    await appendCampaignSent(t, [first, ...healthy]);
    await until(
      'both healthy deliveries',
      () => Promise.resolve(healthyReceiver.requests.length),
      (n) => n === 2,
      30_000,
    );
    expect(healthyReceiver.requests.map((r) => trackingId(r.body)).sort()).toEqual(
      healthy.map((h) => h.tracking_id).sort(),
    );

    const [q] = await until(
      'the quarantine',
      () => listQuarantined(t.db),
      (l) => l.length > 0,
    );
    expect(q).toMatchObject({ subscription_id: poison.id, account_id: poisonAccount });
    expect(q!.reason).toBe('secret_unreadable: no master key "gone" in HOLDFAST_SECRETS_KEYS');
    const [parked] = await listDeliveries(t.db, poison.id);
    expect(parked).toMatchObject({
      tracking_id: first.tracking_id,
      status: 'pending',
      attempts: 0,
      next_attempt_at: null,
      last_error: 'subscription_quarantined: secret_unreadable',
      attempt_log: [],
    });
    expect(errors.filter((e) => e.msg === 'webhook_subscription_quarantined')).toEqual([
      {
        msg: 'webhook_subscription_quarantined',
        ctx: { subscription_id: poison.id, account_id: poisonAccount, reason: q!.reason },
      },
    ]);

    // Polls go on succeeding: the poller is ready, nothing fails batch-wide.
    expect(await dispatcher.pollOnce()).toMatchObject({ attempted: 0 });
    expect(() => dispatcher.pollerCheck()).not.toThrow();
    expect(errors.filter((e) => e.msg === 'dispatcher_poll_failed')).toEqual([]);
    expect(await registry.metrics()).toMatch(
      /holdfast_webhook_subscriptions_quarantined\{service="dispatcher-quarantine-test"\} 1\n/,
    );

    // Another event for it while quarantined is parked too, never sent.
    const second = campaignSent(poisonAccount);
    await appendCampaignSent(t, [second]);
    await until(
      'both poison deliveries parked',
      () => listDeliveries(t.db, poison.id),
      (l) => l.length === 2 && l.every((d) => d.last_error && d.next_attempt_at === null),
    );
    expect(poisonReceiver.requests).toEqual([]);

    // The operator fixes the cause (a new secret sealed under the current key) and lifts it.
    await rotateWebhookSecret(t.db, poison.id, 0, current);
    const lifted = await unquarantineSubscription(t.db, poison.id);
    expect(lifted).toMatchObject({ lifted: { subscription_id: poison.id }, resumed: 2 });
    await until(
      'both resumed deliveries',
      () => Promise.resolve(poisonReceiver.requests.length),
      (n) => n === 2,
      30_000,
    );
    expect(poisonReceiver.requests.map((r) => trackingId(r.body)).sort()).toEqual(
      [first.tracking_id, second.tracking_id].sort(),
    );
    expect(await listQuarantined(t.db)).toEqual([]);
    expect(await registry.metrics()).toMatch(
      /holdfast_webhook_subscriptions_quarantined\{service="dispatcher-quarantine-test"\} 0\n/,
    );
  });

  it('a quarantine stays when its cause remains: lifting it without a fix quarantines it again', async () => {
    const r = await receiver();
    const { id: account } = await createAccount(t.db, { name: 'Still poisoned' });
    const sub = await createWebhookSubscription(t.db, account, r.url, gone);
    await appendCampaignSent(t, [campaignSent(account)]);
    await until(
      'the quarantine',
      () => listQuarantined(t.db, account),
      (l) => l.length > 0,
    );
    await unquarantineSubscription(t.db, sub.id);
    await until(
      'the quarantine again',
      () => listQuarantined(t.db, account),
      (l) => l.length > 0,
    );
    const [d] = await listDeliveries(t.db, sub.id);
    expect(d).toMatchObject({ status: 'pending', attempts: 0, next_attempt_at: null });
    expect(r.requests).toEqual([]);
  });
});
