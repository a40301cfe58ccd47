import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  ControlPlaneError,
  createAccount,
  createWebhookSubscription,
  rotateWebhookSecret,
} from '@holdfast/control-plane';
import { defaultSecretsKeyring } from '@holdfast/secrets';
import { listDeliveries, redeliver } from '@holdfast/webhook-deliveries';
import {
  createTestEnv,
  type TestEnv,
  appendCampaignSent,
  campaignSent,
  startScriptedReceiver,
  until,
  type ReceivedRequest,
} from '@holdfast/testing';
import { startDispatcher, type RunningDispatcher } from '../src/start-dispatcher.js';

const MIN = 60_000;

/** The receiver's side, written independently of the dispatcher: a plain HMAC of the raw body. */
const plainHmac = (secret: string, body: string): string =>
  createHmac('sha256', secret).update(body).digest('hex');

/** Verifies with the `standardwebhooks` package, as a receiver would (throws on failure). */
const standardVerify = (secret: string, r: ReceivedRequest): unknown =>
  new Webhook(secret).verify(r.body, {
    'webhook-id': String(r.headers['webhook-id']),
    'webhook-timestamp': String(r.headers['webhook-timestamp']),
    'webhook-signature': String(r.headers['webhook-signature']),
  });

describe('webhooks a receiver can trust: Standard Webhooks signatures, secret rotation, redelivery', () => {
  let t: TestEnv;
  let clock = Date.now();
  const now = (): Date => new Date(clock);
  let dispatcher: RunningDispatcher | undefined;
  const closers: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    t = await createTestEnv('webhooktrust');
    dispatcher = await startDispatcher(
      { topicPrefix: t.topicPrefix, pollIntervalMs: 100, timeoutMs: 2_000, sessionTimeoutMs: 6_000 },
      { pool: t.pool, kafka: t.kafka, codec: t.codec, now },
    );
  });
  afterAll(async () => {
    await dispatcher?.stop();
    for (const c of closers) await c();
    await t?.close();
  });

  it('signs every delivery for both checks, keeps the spec headers, and lets a receiver refuse a replay', async () => {
    const { id: account } = await createAccount(t.db, { name: 'Trust shop' });
    const receiver = await startScriptedReceiver([200]);
    closers.push(receiver.close);
    const { secret } = await createWebhookSubscription(t.db, account, receiver.url);
    const sent = campaignSent(account);
    await appendCampaignSent(t, [sent]);
    const [r] = await until(
      'the delivery',
      () => Promise.resolve(receiver.requests),
      (rs) => rs.length > 0,
    );
    const h = r!.headers;
    expect(h['x-service-event']).toBe('campaign.sent');
    expect(h['x-service-delivery']).toMatch(/^[0-9a-f-]{36}$/);
    expect(h['webhook-id']).toBe(h['x-service-delivery']);
    expect(Math.abs(Number(h['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(30);
    expect(String(h['webhook-signature'])).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    // The spec's signature, checked by hand; the Standard Webhooks one, by the independent library.
    expect(h['x-service-signature']).toBe(plainHmac(secret, r!.body));
    expect(standardVerify(secret, r!)).toEqual(JSON.parse(r!.body));
    expect(() => standardVerify(secret, { ...r!, body: r!.body.replace('win_back', 'vip') })).toThrow(
      'No matching signature found',
    );
    expect(() => standardVerify('whsec_' + Buffer.alloc(24, 7).toString('base64'), r!)).toThrow(
      'No matching signature found',
    );
    // A captured delivery replayed ten minutes later is refused by the receiver's tolerance window.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + 10 * MIN);
      expect(() => standardVerify(secret, r!)).toThrow('Message timestamp too old');
    } finally {
      vi.useRealTimers();
    }
  });

  it('during a rotation both secrets sign webhook-signature; X-Service-Signature uses the new one; after the grace only the new', async () => {
    const { id: account } = await createAccount(t.db, { name: 'Rotating shop' });
    const receiver = await startScriptedReceiver([200]);
    closers.push(receiver.close);
    const { id, secret: oldSecret } = await createWebhookSubscription(t.db, account, receiver.url);
    const { secret: newSecret, previousExpiresAt } = await rotateWebhookSecret(
      t.db,
      id,
      3600,
      defaultSecretsKeyring(),
      now(),
    );
    await appendCampaignSent(t, [campaignSent(account)]);
    const [during] = await until(
      'the delivery during the overlap',
      () => Promise.resolve(receiver.requests),
      (rs) => rs.length > 0,
    );
    expect(String(during!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    // A receiver still on the old secret and one already on the new both verify.
    expect(standardVerify(oldSecret, during!)).toBeTruthy();
    expect(standardVerify(newSecret, during!)).toBeTruthy();
    expect(during!.headers['x-service-signature']).toBe(plainHmac(newSecret, during!.body));

    clock = previousExpiresAt.getTime() + 1000;
    try {
      await appendCampaignSent(t, [campaignSent(account)]);
      const after = await until(
        'the delivery after the overlap',
        () => Promise.resolve(receiver.requests[1]),
        (r) => r !== undefined,
      );
      expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
      expect(standardVerify(newSecret, after)).toBeTruthy();
      expect(() => standardVerify(oldSecret, after)).toThrow('No matching signature found');
      expect(after.headers['x-service-signature']).toBe(plainHmac(newSecret, after.body));
    } finally {
      clock = Date.now();
    }
  });

  it('lists a failed delivery with its attempts and redelivers it once the receiver is fixed', async () => {
    const { id: account } = await createAccount(t.db, { name: 'Broken shop' });
    const answers: (number | 'hang')[] = [500];
    const receiver = await startScriptedReceiver(answers);
    closers.push(receiver.close);
    const { id: sub, secret } = await createWebhookSubscription(t.db, account, receiver.url);
    const t0 = Date.now();
    clock = t0;
    try {
      await appendCampaignSent(t, [campaignSent(account)]);
      await until(
        'the first attempt',
        () => Promise.resolve(receiver.requests.length),
        (n) => n > 0,
      );
      await until(
        'the first attempt to be recorded',
        async () => (await listDeliveries(t.db, sub))[0]?.attempts,
        (n) => n === 1,
      );
      for (const m of [15, 45, 90]) {
        clock = t0 + m * MIN;
        await dispatcher!.pollOnce();
      }
      const [failed] = await listDeliveries(t.db, sub, { status: 'failed' });
      expect(failed).toMatchObject({
        status: 'failed',
        attempts: 4,
        last_error: 'http_500',
        next_attempt_at: null,
      });
      expect(failed!.attempt_log.map((a) => [a.attempt, a.succeeded, a.status_code, a.error])).toEqual([
        [1, false, 500, 'http_500'],
        [2, false, 500, 'http_500'],
        [3, false, 500, 'http_500'],
        [4, false, 500, 'http_500'],
      ]);

      answers.push(200); // the receiver is fixed: from its fifth request on it answers 200
      expect(await redeliver(t.db, { subscriptionId: sub }, now())).toEqual([failed!.delivery_id]);
      await until(
        'the delivery to succeed',
        async () => (await listDeliveries(t.db, sub))[0]?.status,
        (s) => s === 'delivered',
      );
      const [delivered] = await listDeliveries(t.db, sub);
      expect(delivered!.attempt_log.map((a) => [a.attempt, a.succeeded])).toEqual([
        [1, false],
        [2, false],
        [3, false],
        [4, false],
        [5, true],
      ]);
      // The same delivery, the same id and bytes: receivers deduplicate on it.
      const [first, , , , fifth] = receiver.requests;
      expect(fifth!.headers['x-service-delivery']).toBe(first!.headers['x-service-delivery']);
      expect(fifth!.body).toBe(first!.body);
      expect(fifth!.headers['x-service-signature']).toBe(plainHmac(secret, fifth!.body));
      // Only failed deliveries are redelivered: a delivered one is a conflict (409 over HTTP).
      await expect(
        redeliver(t.db, { subscriptionId: sub, deliveryId: delivered!.delivery_id }),
      ).rejects.toThrow(
        new ControlPlaneError(
          'conflict',
          `delivery ${delivered!.delivery_id} is delivered: only failed deliveries can be redelivered`,
        ),
      );
      expect(await redeliver(t.db, { subscriptionId: sub })).toEqual([]);
    } finally {
      clock = Date.now();
    }
  });
});
