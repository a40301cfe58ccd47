// No head-of-line blocking: a receiver that never answers (a tarpit) holds at most its subscription's
// in-flight cap, and another subscription's delivery enqueued meanwhile goes out at once: not after
// the tarpit's attempts time out, nor after the poll's reclaim interval (the enqueue rings the
// doorbell of the poll waiting beside the tarpit).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, createWebhookSubscription } from '@holdfast/control-plane';
import {
  createTestEnv,
  type TestEnv,
  appendCampaignSent,
  campaignSent,
  startScriptedReceiver,
  until,
  type ScriptedReceiver,
} from '@holdfast/testing';
import { startDispatcher, type RunningDispatcher } from '../src/start-dispatcher.js';

const TIMEOUT_MS = 8_000;
// Long, so that a delivery that waited for the next reclaim would show.
const RECLAIM_MS = 5_000;
let t: TestEnv;
let dispatcher: RunningDispatcher;
let tarpit: ScriptedReceiver;
let fast: ScriptedReceiver;

beforeAll(async () => {
  t = await createTestEnv('dispsendpool');
  tarpit = await startScriptedReceiver(['hang']);
  fast = await startScriptedReceiver([200]);
  dispatcher = await startDispatcher(
    {
      topicPrefix: t.topicPrefix,
      pollIntervalMs: RECLAIM_MS,
      timeoutMs: TIMEOUT_MS,
      sessionTimeoutMs: 6_000,
      maxInFlightPerSubscription: 2,
    },
    { pool: t.pool, kafka: t.kafka, codec: t.codec },
  );
});
afterAll(async () => {
  // The tarpit's connections close first: its attempts fail at once instead of at the timeout.
  await tarpit?.close();
  await fast?.close();
  await dispatcher?.stop();
  await t?.close();
});

describe('the delivery pool on the real stack', () => {
  it('keeps delivering another subscription while a tarpit receiver holds only its own cap', async () => {
    const { id: slowAccount } = await createAccount(t.db, { name: 'Tarpit shop' });
    const { id: fastAccount } = await createAccount(t.db, { name: 'Fast shop' });
    await createWebhookSubscription(t.db, slowAccount, tarpit.url);
    await createWebhookSubscription(t.db, fastAccount, fast.url);

    await appendCampaignSent(
      t,
      Array.from({ length: 5 }, () => campaignSent(slowAccount)),
    );
    await until(
      'both tarpit deliveries',
      () => Promise.resolve(tarpit.requests.length),
      (n) => n === 2,
      30_000,
    );

    const started = Date.now();
    const sent = campaignSent(fastAccount);
    await appendCampaignSent(t, [sent]);
    await until(
      'the fast delivery',
      () => Promise.resolve(fast.requests.length),
      (n) => n > 0,
      TIMEOUT_MS,
    );
    const waitedMs = Date.now() - started;
    // Enqueue (Kafka, exactly-once) and one claim: far below the reclaim interval and the tarpit's timeout.
    expect(waitedMs).toBeLessThan(RECLAIM_MS / 2);
    expect(fast.requests[0]!.body).toContain(sent.tracking_id);
    // The tarpit still holds only its cap: the other three wait their turn.
    expect(tarpit.requests).toHaveLength(2);
    console.info(`another subscription's delivery arrived ${waitedMs} ms after enqueue beside a tarpit`);
  });
});
