import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, createWebhookSubscription } from '@holdfast/control-plane';
import {
  createTestEnv,
  type TestEnv,
  appendCampaignSent,
  campaignSent,
  spawnExampleReceiver,
  startScriptedReceiver,
  until,
  type ExampleReceiver,
  type ScriptedReceiver,
} from '@holdfast/testing';
import { startDispatcher, type RunningDispatcher } from '../src/start-dispatcher.js';
import { verifySignature } from '../src/signature.js';

const MIN = 60_000;
const T0 = Date.parse('2025-03-01T09:00:00.000Z');

interface AttemptRow {
  attempt: number;
  attempted_at: Date;
  succeeded: boolean;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
}

describe('dispatcher: signed campaign.sent deliveries with durable retries', () => {
  let t: TestEnv;
  let clock = T0;
  const now = (): Date => new Date(clock);
  let dispatcher: RunningDispatcher | undefined;
  const receivers: { close(): Promise<void> }[] = [];
  const start = (group = 'dispatcher', timeoutMs = 2_000): Promise<RunningDispatcher> =>
    startDispatcher(
      {
        topicPrefix: t.topicPrefix,
        groupId: `${t.topicPrefix}${group}`,
        pollIntervalMs: 100,
        timeoutMs,
        sessionTimeoutMs: 6_000,
      },
      { pool: t.pool, kafka: t.kafka, codec: t.codec, now },
    );
  const deliveryOf = async (url: string) =>
    (
      await t.pool.query<{
        delivery_id: string;
        status: string;
        attempts: number;
        next_attempt_at: Date | null;
      }>(
        `select d.delivery_id, d.status, d.attempts, d.next_attempt_at from dispatcher.deliveries d
           join control.webhook_subscriptions s on s.id = d.subscription_id where s.url = $1`,
        [url],
      )
    ).rows;
  const attemptsOf = async (deliveryId: string) =>
    (
      await t.pool.query<AttemptRow>(
        `select attempt, attempted_at, succeeded, status_code, error, duration_ms
           from dispatcher.delivery_attempts where delivery_id = $1 order by attempt`,
        [deliveryId],
      )
    ).rows;

  beforeAll(async () => {
    t = await createTestEnv('dispatcher');
  });
  afterAll(async () => {
    await dispatcher?.stop();
    for (const r of receivers) await r.close();
    await t.close();
  });

  it('delivers to every active subscription, signed; retries a failing receiver after 15 and 30 minutes, across a restart', async () => {
    const { id: accountId } = await createAccount(t.db, {
      name: 'Retry shop',
      storefrontDomain: 'shop.example.com',
    });
    const { id: other } = await createAccount(t.db, { name: 'Other shop' });
    // The first subscription goes to the documented example receiver, run as a real process (it needs
    // the secret, which exists once the subscription does, so the URL is set after it starts).
    const first = await createWebhookSubscription(t.db, accountId, 'http://127.0.0.1:1/placeholder');
    const verifier: ExampleReceiver = await spawnExampleReceiver(first.secret);
    receivers.push(verifier);
    await t.pool.query(`update control.webhook_subscriptions set url = $2 where id = $1`, [
      first.id,
      verifier.url,
    ]);
    const flaky: ScriptedReceiver = await startScriptedReceiver([500, 503, 200]);
    receivers.push(flaky);
    const second = await createWebhookSubscription(t.db, accountId, flaky.url);
    const disabled = await startScriptedReceiver([200]);
    receivers.push(disabled);
    const off = await createWebhookSubscription(t.db, accountId, disabled.url);
    await t.pool.query(`update control.webhook_subscriptions set disabled_at = now() where id = $1`, [
      off.id,
    ]);
    const foreign = await startScriptedReceiver([200]);
    receivers.push(foreign);
    await createWebhookSubscription(t.db, other, foreign.url);

    dispatcher = await start();
    const sent = campaignSent(accountId, { campaign_type: 'win_back', provider: 'local-mail' });
    await appendCampaignSent(t, [sent]);

    const [line] = await verifier.waitForLines(1);
    expect(line).toMatchObject({
      event: 'campaign.sent',
      verified: true,
      standard_verified: true,
      duplicate: false,
      data: { campaign_type: 'win_back', provider: 'local-mail', tracking_id: sent.tracking_id },
    });
    await until(
      'the first attempt',
      () => Promise.resolve(flaky.requests.length),
      (n) => n >= 1,
    );
    const [req1] = flaky.requests;
    expect(req1!.headers['x-service-event']).toBe('campaign.sent');
    expect(JSON.parse(req1!.body)).toEqual({
      event: 'campaign.sent',
      data: { campaign_type: 'win_back', provider: 'local-mail', tracking_id: sent.tracking_id },
    });
    expect(verifySignature(second.secret, req1!.body, String(req1!.headers['x-service-signature']))).toBe(
      true,
    );
    const [pending] = await until(
      'the first attempt to be recorded',
      () => deliveryOf(flaky.url),
      (rows) => rows[0]?.attempts === 1,
    );
    expect(pending).toMatchObject({ status: 'pending', next_attempt_at: new Date(T0 + 15 * MIN) });
    expect(line!.delivery).not.toBe(pending!.delivery_id);

    // Not due before 15 minutes.
    clock = T0 + 14 * MIN;
    expect((await dispatcher.pollOnce()).attempted).toBe(0);
    clock = T0 + 15 * MIN;
    expect(await dispatcher.pollOnce()).toMatchObject({ attempted: 1, retryScheduled: 1 });
    expect((await deliveryOf(flaky.url))[0]).toMatchObject({
      attempts: 2,
      next_attempt_at: new Date(T0 + 45 * MIN),
    });

    // A restart loses nothing: a new dispatcher process finds the pending retry in PostgreSQL.
    await dispatcher.stop();
    dispatcher = await start();
    clock = T0 + 44 * MIN;
    expect((await dispatcher.pollOnce()).attempted).toBe(0);
    clock = T0 + 45 * MIN;
    expect(await dispatcher.pollOnce()).toMatchObject({ attempted: 1, delivered: 1 });

    const [done] = await deliveryOf(flaky.url);
    expect(done).toMatchObject({ status: 'delivered', attempts: 3, next_attempt_at: null });
    const attempts = await attemptsOf(done!.delivery_id);
    expect(attempts.map((a) => [a.attempt, a.status_code, a.succeeded, a.error])).toEqual([
      [1, 500, false, 'http_500'],
      [2, 503, false, 'http_503'],
      [3, 200, true, null],
    ]);
    expect(attempts.map((a) => a.attempted_at.getTime())).toEqual([T0, T0 + 15 * MIN, T0 + 45 * MIN]);
    expect(attempts.every((a) => a.duration_ms >= 0)).toBe(true);
    // One delivery id on every attempt, and every attempt is signed.
    expect(new Set(flaky.requests.map((r) => r.headers['x-service-delivery']))).toEqual(
      new Set([done!.delivery_id]),
    );
    for (const r of flaky.requests)
      expect(verifySignature(second.secret, r.body, String(r.headers['x-service-signature']))).toBe(true);
    // Disabled subscriptions and other accounts' subscriptions get nothing.
    expect(disabled.requests).toHaveLength(0);
    expect(foreign.requests).toHaveLength(0);
    expect(verifier.lines).toHaveLength(1);

    // The same CampaignSent appended again (a recompute that crashed before noting its append) gives no new delivery.
    await appendCampaignSent(t, [{ ...sent, metadata: { ...sent.metadata, event_id: 'again' } }]);
    const marker = campaignSent(accountId, { campaign_type: 'vip' });
    await appendCampaignSent(t, [marker]);
    await verifier.waitForLines(2);
    expect(verifier.lines.map((l) => (l.data as { tracking_id: string }).tracking_id)).toEqual([
      sent.tracking_id,
      marker.tracking_id,
    ]);
  });

  it('gives up after three retries; records timeouts and network errors', async () => {
    await dispatcher?.stop();
    clock = T0;
    const { id: accountId } = await createAccount(t.db, { name: 'Down shop' });
    const hanging = await startScriptedReceiver(['hang']);
    receivers.push(hanging);
    await createWebhookSubscription(t.db, accountId, hanging.url);
    const closedPort = await startScriptedReceiver([200]);
    await closedPort.close();
    await createWebhookSubscription(t.db, accountId, closedPort.url);
    dispatcher = await start('dispatcher-2', 300);
    await appendCampaignSent(t, [
      campaignSent(accountId, { campaign_type: 'replenishment', channel: 'sms' }),
    ]);

    for (const url of [hanging.url, closedPort.url])
      await until(
        'the first attempt to be recorded',
        async () => (await deliveryOf(url))[0]?.attempts,
        (n) => n === 1,
      );
    for (const minutes of [15, 45, 90]) {
      clock = T0 + minutes * MIN;
      expect((await dispatcher.pollOnce()).attempted).toBe(2);
    }
    clock = T0 + 10 * 60 * MIN;
    expect((await dispatcher.pollOnce()).attempted).toBe(0);
    for (const url of [hanging.url, closedPort.url]) {
      const [d] = await deliveryOf(url);
      expect(d).toMatchObject({ status: 'failed', attempts: 4, next_attempt_at: null });
      const attempts = await attemptsOf(d!.delivery_id);
      expect(attempts.map((a) => a.attempted_at.getTime())).toEqual([
        T0,
        T0 + 15 * MIN,
        T0 + 45 * MIN,
        T0 + 90 * MIN,
      ]);
      expect(attempts.every((a) => !a.succeeded && a.status_code === null)).toBe(true);
      // Generic failure classes only: the attempt log must not tell a refused port from a filtered one.
      expect(attempts.map((a) => a.error)).toEqual(
        Array(4).fill(url === hanging.url ? 'timeout' : 'connection_failed'),
      );
    }
    expect(hanging.requests).toHaveLength(4);
  });
});
