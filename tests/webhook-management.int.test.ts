// /v1/webhooks end to end: an sk_live_ key creates a subscription over HTTP (its secret sealed by the
// gateway to the dispatcher's public key), the real dispatcher delivers campaign.sent to a real HTTP
// receiver signed with that secret, the delivery log and redelivery are read and driven over HTTP,
// a rotation signs with both secrets; every answer validated against /v1/openapi.json; another
// account's ids answer 404.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultSecretsKeyring, parseWebhookSealKey } from '@holdfast/secrets';
import { mintApiKey } from '@holdfast/control-plane';
import { migrateDispatcher } from '@holdfast/migrations';
import { startDispatcher, verifySignature, type RunningDispatcher } from '@holdfast/dispatcher';
import {
  createTestEnv,
  type TestEnv,
  appendCampaignSent,
  campaignSent,
  startScriptedReceiver,
  until,
  type ScriptedReceiver,
} from '@holdfast/testing';
import { AUTH_DETAIL } from '../services/gateway/src/auth/resolve-principal.js';
import {
  schemaErrors,
  call,
  newAccount,
  startGateway,
  type AccountFixture,
  type Answer,
  type TestGateway,
} from '@holdfast/testing/services';
import { WEBHOOK_DETAIL } from '../services/gateway/src/webhook-management/webhook-management-router.js';

/** Asserts the status and that the body is valid against components.schemas[`schema`] (formats too). */
function expectValid(answer: Answer, status: number, schema: string): void {
  expect(answer.status, answer.text).toBe(status);
  expect(schemaErrors(schema, answer.json)).toEqual([]);
}

let t: TestEnv;
let gw: TestGateway;
let dispatcher: RunningDispatcher;
let a: AccountFixture & { sk: string };
let b: AccountFixture & { sk: string };
const receivers: ScriptedReceiver[] = [];

const api = (key: string, method: string, path: string, body?: unknown) =>
  call(gw.url, method, path, { key, body });
const receiver = async (statuses: (number | 'hang')[]) => {
  const r = await startScriptedReceiver(statuses);
  receivers.push(r);
  return r;
};

beforeAll(async () => {
  t = await createTestEnv('webhook-management');
  await migrateDispatcher(t.db as unknown as Kysely<unknown>);
  gw = await startGateway(t, {
    // The public half of this process's master key: what `holdfast secrets webhook-seal-key` prints.
    config: { webhookSealKey: parseWebhookSealKey(defaultSecretsKeyring().webhookSealKeySetting()) },
  });
  const withOutboundKey = async (name: string) => {
    const acc = await newAccount(t, { name });
    return { ...acc, sk: (await mintApiKey(t.db, acc.accountId, 'outbound')).key };
  };
  [a, b] = await Promise.all([withOutboundKey('A'), withOutboundKey('B')]);
  dispatcher = await startDispatcher(
    {
      topicPrefix: t.topicPrefix,
      groupId: `${t.topicPrefix}dispatcher`,
      pollIntervalMs: 50,
      timeoutMs: 2_000,
      sessionTimeoutMs: 6_000,
      // One retry a moment later, then failed: the test reaches a failed delivery at once.
      retryDelaysMs: [50],
    },
    { pool: t.pool, kafka: t.kafka, codec: t.codec },
  );
}, 120_000);

afterAll(async () => {
  await dispatcher?.stop();
  for (const r of receivers) await r.close();
  await gw?.close();
  await t?.close();
});

describe('/v1/webhooks with an outbound key', () => {
  it('creates a subscription whose secret, sealed by the gateway, signs the real deliveries; lists, gets, deletes', async () => {
    const r = await receiver([200]);
    const created = await api(a.sk, 'POST', '/v1/webhooks', { url: r.url });
    expectValid(created, 201, 'WebhookCreated');
    expect(created.headers.get('cache-control')).toBe('no-store');
    expect(created.json).toMatchObject({ url: r.url, event_types: ['campaign.sent'] });
    const { id, secret } = created.json as { id: string; secret: string };

    // Stored sealed to the public key only: no plain text anywhere, key id x25519:<master key id>.
    const { rows } = await t.pool.query<{ key_id: string; ciphertext: Buffer }>(
      'select key_id, ciphertext from control.webhook_secrets where subscription_id = $1',
      [id],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.key_id).toBe(`x25519:${defaultSecretsKeyring().currentKeyId}`);
    expect(rows[0]!.ciphertext.includes(Buffer.from(secret))).toBe(false);

    const sent = campaignSent(a.accountId);
    await appendCampaignSent(t, [sent]);
    const got = await until(
      'the delivery',
      () => Promise.resolve(r.requests[0]),
      (x) => x !== undefined,
    );
    expect(verifySignature(secret, got.body, String(got.headers['x-service-signature']))).toBe(true);
    expect(schemaErrors('CampaignSentEvent', JSON.parse(got.body))).toEqual([]);
    expect(
      new Webhook(secret.slice('whsec_'.length)).verify(got.body, got.headers as Record<string, string>),
    ).toEqual(JSON.parse(got.body));

    const list = await api(a.sk, 'GET', '/v1/webhooks');
    expectValid(list, 200, 'WebhookList');
    expect((list.json as { webhooks: { id: string }[] }).webhooks.map((w) => w.id)).toEqual([id]);
    expectValid(await api(a.sk, 'GET', `/v1/webhooks/${id}`), 200, 'Webhook');

    const deliveries = await until(
      'the delivery listed as delivered',
      () => api(a.sk, 'GET', `/v1/webhooks/${id}/deliveries`),
      (d) => (d.json as { deliveries: { status: string }[] }).deliveries[0]?.status === 'delivered',
    );
    expectValid(deliveries, 200, 'DeliveryList');
    expect(deliveries.json.deliveries[0]).toMatchObject({
      event: 'campaign.sent',
      attempts: 1,
      delivery_id: got.headers['x-service-delivery'],
      attempt_log: [{ attempt: 1, succeeded: true, status_code: 200, error: null }],
    });

    expect((await api(a.sk, 'DELETE', `/v1/webhooks/${id}`)).status).toBe(204);
    expect((await api(a.sk, 'DELETE', `/v1/webhooks/${id}`)).status).toBe(404);
    expect((await api(a.sk, 'GET', `/v1/webhooks/${id}`)).status).toBe(404);
    expect((await api(a.sk, 'GET', '/v1/webhooks')).json).toEqual({ webhooks: [] });
  });

  it('chooses its event types: a subscription without campaign.sent gets no campaign.sent delivery', async () => {
    const r = await receiver([200]);
    const only = await api(a.sk, 'POST', '/v1/webhooks', {
      url: r.url,
      event_types: ['sync.completed', 'customer.churned', 'sync.completed'],
    });
    expectValid(only, 201, 'WebhookCreated');
    expect(only.json.event_types).toEqual(['customer.churned', 'sync.completed']);
    const control = await receiver([200]);
    const both = await api(a.sk, 'POST', '/v1/webhooks', { url: control.url });
    await appendCampaignSent(t, [campaignSent(a.accountId)]);
    await until(
      'the control delivery',
      () => Promise.resolve(control.requests.length),
      (n) => n > 0,
    );
    await new Promise((res) => setTimeout(res, 300));
    expect(r.requests).toHaveLength(0);
    await api(a.sk, 'DELETE', `/v1/webhooks/${only.json.id}`);
    await api(a.sk, 'DELETE', `/v1/webhooks/${both.json.id}`);
  });

  it('lists a failed delivery with its attempts and redelivers it; a delivered one is a 409', async () => {
    const r = await receiver([500, 503, 200]);
    const { json: sub } = await api(a.sk, 'POST', '/v1/webhooks', { url: r.url });
    await appendCampaignSent(t, [campaignSent(a.accountId)]);
    const failed = await until(
      'the failed delivery',
      () => api(a.sk, 'GET', `/v1/webhooks/${sub.id}/deliveries?status=failed`),
      (d) => d.json.deliveries.length > 0,
    );
    expectValid(failed, 200, 'DeliveryList');
    const delivery = failed.json.deliveries[0] as {
      delivery_id: string;
      attempt_log: { status_code: number; error: string }[];
    };
    expect(delivery.attempt_log.map((x) => [x.status_code, x.error])).toEqual([
      [500, 'http_500'],
      [503, 'http_503'],
    ]);

    const again = await api(
      a.sk,
      'POST',
      `/v1/webhooks/${sub.id}/deliveries/${delivery.delivery_id}/redeliver`,
    );
    expectValid(again, 202, 'RedeliveryScheduled');
    await until(
      'the redelivery',
      () => Promise.resolve(r.requests.length),
      (n) => n >= 3,
    );
    expect(r.requests[2]!.headers['x-service-delivery']).toBe(delivery.delivery_id);
    expect(r.requests[2]!.body).toBe(r.requests[0]!.body);
    const done = await until(
      'the redelivery listed as delivered',
      () => api(a.sk, 'GET', `/v1/webhooks/${sub.id}/deliveries`),
      (d) => d.json.deliveries[0].status === 'delivered',
    );
    expect(done.json.deliveries[0].attempts).toBe(3);
    const conflict = await api(
      a.sk,
      'POST',
      `/v1/webhooks/${sub.id}/deliveries/${delivery.delivery_id}/redeliver`,
    );
    expect(conflict.status).toBe(409);
    expect(conflict.json.detail).toMatch(/only failed deliveries/);
    await api(a.sk, 'DELETE', `/v1/webhooks/${sub.id}`);
  });

  it('rotates the secret: shown once, the next delivery signed with both during the grace window', async () => {
    const r = await receiver([200]);
    const { json: sub } = await api(a.sk, 'POST', '/v1/webhooks', { url: r.url });
    const rotated = await api(a.sk, 'POST', `/v1/webhooks/${sub.id}/rotate-secret`, { grace_seconds: 3600 });
    expectValid(rotated, 200, 'SecretRotated');
    expect(rotated.headers.get('cache-control')).toBe('no-store');
    expect(rotated.json.secret).not.toBe(sub.secret);
    await appendCampaignSent(t, [campaignSent(a.accountId)]);
    const got = await until(
      'the delivery',
      () => Promise.resolve(r.requests[0]),
      (x) => x !== undefined,
    );
    expect(verifySignature(rotated.json.secret, got.body, String(got.headers['x-service-signature']))).toBe(
      true,
    );
    const headers = got.headers as Record<string, string>;
    for (const secret of [rotated.json.secret as string, sub.secret as string])
      expect(new Webhook(secret.slice('whsec_'.length)).verify(got.body, headers)).toBeTruthy();
    const bad = await api(a.sk, 'POST', `/v1/webhooks/${sub.id}/rotate-secret`, { grace_seconds: -1 });
    expect(bad.status).toBe(422);
    expect(bad.json.detail[0].loc).toEqual(['body', 'grace_seconds']);
    await api(a.sk, 'DELETE', `/v1/webhooks/${sub.id}`);
  });

  it('refuses a destination the dispatcher would refuse, and unknown event types, as one 422', async () => {
    const r = await api(a.sk, 'POST', '/v1/webhooks', {
      url: 'https://169.254.169.254/latest',
      event_types: ['order.created'],
    });
    expectValid(r, 422, 'ValidationErrorBody');
    expect((r.json.detail as { loc: unknown[] }[]).map((d) => d.loc)).toEqual([
      ['body', 'url'],
      ['body', 'event_types'],
    ]);
    expect((await api(a.sk, 'POST', '/v1/webhooks', { event_types: [] })).status).toBe(422);
    expect((await api(a.sk, 'POST', '/v1/webhooks', [1])).status).toBe(422);
  });
});

describe('/v1/webhooks tenancy and keys', () => {
  it("answers 404 for another account's subscription and delivery on every route, and changes nothing", async () => {
    const r = await receiver([500]);
    const { json: sub } = await api(a.sk, 'POST', '/v1/webhooks', { url: r.url });
    await appendCampaignSent(t, [campaignSent(a.accountId)]);
    const delivery = await until(
      'the failed delivery',
      async () => {
        const d = await api(a.sk, 'GET', `/v1/webhooks/${sub.id}/deliveries?status=failed`);
        return d.json.deliveries[0] as { delivery_id: string } | undefined;
      },
      (x) => x !== undefined,
    );
    const routes: [string, string, unknown?][] = [
      ['GET', `/v1/webhooks/${sub.id}`],
      ['GET', `/v1/webhooks/${sub.id}/deliveries`],
      ['POST', `/v1/webhooks/${sub.id}/rotate-secret`, {}],
      ['POST', `/v1/webhooks/${sub.id}/deliveries/${delivery.delivery_id}/redeliver`],
      ['DELETE', `/v1/webhooks/${sub.id}`],
    ];
    for (const [method, path, body] of routes) {
      const answer = await api(b.sk, method, path, body);
      expect(answer.status, `${method} ${path}`).toBe(404);
      expect(answer.json).toEqual({ detail: WEBHOOK_DETAIL.noSubscription });
    }
    expect((await api(b.sk, 'GET', '/v1/webhooks')).json).toEqual({ webhooks: [] });
    // Nothing of A's changed: still listed, one secret, the delivery still failed.
    expect((await api(a.sk, 'GET', `/v1/webhooks/${sub.id}`)).status).toBe(200);
    const { rows } = await t.pool.query('select 1 from control.webhook_secrets where subscription_id = $1', [
      sub.id,
    ]);
    expect(rows).toHaveLength(1);
    const still = await api(a.sk, 'GET', `/v1/webhooks/${sub.id}/deliveries`);
    expect(still.json.deliveries[0].status).toBe('failed');
    // A's own subscription, but a delivery id of nobody: 404 with the delivery's detail.
    const unknown = await api(a.sk, 'POST', `/v1/webhooks/${sub.id}/deliveries/${randomUUID()}/redeliver`);
    expect(unknown.status).toBe(404);
    expect(unknown.json.detail).toBe(WEBHOOK_DETAIL.noDelivery);
    expect((await api(a.sk, 'GET', `/v1/webhooks/not-an-id`)).status).toBe(404);
    await api(a.sk, 'DELETE', `/v1/webhooks/${sub.id}`);
  });

  it('takes outbound keys only: ingest and read keys 403, no key or the tile token 401; sk_live_ still never ingests', async () => {
    const read = (await mintApiKey(t.db, a.accountId, 'read_live')).key;
    for (const key of [a.key, read]) {
      const r = await api(key, 'GET', '/v1/webhooks');
      expect(r.status).toBe(403);
      expect(r.json).toEqual({ detail: AUTH_DETAIL.webhooksNeedOutboundKey });
    }
    expect((await call(gw.url, 'GET', '/v1/webhooks')).status).toBe(401);
    const inQuery = await call(gw.url, 'GET', `/v1/webhooks?key=${a.sk}`, { key: a.sk });
    expect(inQuery.status).toBe(401);
    expect(inQuery.json).toEqual({ detail: AUTH_DETAIL.keyInQuery });
    const ingest = await api(a.sk, 'POST', '/v1/orders', { orders: [] });
    expect(ingest.status).toBe(401);
    expect(ingest.json).toEqual({ detail: AUTH_DETAIL.outboundKey });
    expect((await api(a.sk, 'GET', '/v1/customers')).status).toBe(401);
    const limited = await api(a.sk, 'GET', '/v1/webhooks');
    expect(limited.headers.get('ratelimit-policy')).toBe('"per-key";q=600;w=60');
  });

  it('answers 503 when the gateway has no seal key, and still lists', async () => {
    const bare = await startGateway(t, { config: { webhookSealKey: null } });
    try {
      const r = await call(bare.url, 'POST', '/v1/webhooks', {
        key: a.sk,
        body: { url: 'https://example.com/h' },
      });
      expect(r.status).toBe(503);
      expect(r.json).toEqual({ detail: WEBHOOK_DETAIL.notSealable });
      expect((await call(bare.url, 'GET', '/v1/webhooks', { key: a.sk })).status).toBe(200);
    } finally {
      await bare.close();
    }
  });
});
