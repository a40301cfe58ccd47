import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, createWebhookSubscription } from '@holdfast/control-plane';
import {
  createTestEnv,
  spawnTs,
  type TestEnv,
  appendCampaignSent,
  campaignSent,
  startScriptedReceiver,
  until,
  type ScriptedReceiver,
} from '@holdfast/testing';
import { verifySignature } from '../src/signature.js';

describe('dispatcher process (main.ts)', () => {
  let t: TestEnv;
  let receiver: ScriptedReceiver;

  beforeAll(async () => {
    t = await createTestEnv('dispatcherproc');
    receiver = await startScriptedReceiver([200]);
  });
  afterAll(async () => {
    await receiver.close();
    await t.close();
  });

  it('starts from the environment, serves /metrics, delivers a signed campaign.sent and stops on SIGTERM', async () => {
    const { id: accountId } = await createAccount(t.db, { name: 'Process shop' });
    const { secret } = await createWebhookSubscription(t.db, accountId, receiver.url);
    const child = spawnTs('services/dispatcher/src/main.ts', { ...t.env, PORT: '0', LOG_LEVEL: 'info' });
    const logs: Record<string, unknown>[] = [];
    createInterface({ input: child.stdout! }).on('line', (l) =>
      logs.push(JSON.parse(l) as Record<string, unknown>),
    );
    try {
      const ready = await until(
        'dispatcher_ready',
        () => Promise.resolve(logs.find((l) => l.event === 'dispatcher_ready')),
        (l) => l !== undefined,
        60_000,
      );
      const ops = `http://127.0.0.1:${String(ready.metricsPort)}`;
      const metrics = await fetch(`${ops}/metrics`);
      const text = await metrics.text();
      expect(text).toContain('holdfast_webhook_attempts_total');
      expect(text).toMatch(/holdfast_webhook_backlog_deliveries\{service="dispatcher"\} 0\n/);
      expect((await fetch(`${ops}/healthz`)).status).toBe(200);
      const readyz = await until(
        'readyz 200',
        async () => {
          const r = await fetch(`${ops}/readyz`);
          return { status: r.status, body: await r.json() };
        },
        (r) => r.status === 200,
        30_000,
      ).then((r) => r.body);
      expect(readyz).toEqual({
        ready: true,
        checks: { postgres: 'ok', kafka: 'ok', registry: 'ok', consumer: 'ok', poller: 'ok' },
      });

      const sent = campaignSent(accountId, { campaign_type: 'vip', provider: 'local-mail' });
      await appendCampaignSent(t, [sent]);
      await until(
        'the delivery',
        () => Promise.resolve(receiver.requests.length),
        (n) => n > 0,
        60_000,
      );
      const [req] = receiver.requests;
      expect(JSON.parse(req!.body)).toEqual({
        event: 'campaign.sent',
        data: { campaign_type: 'vip', provider: 'local-mail', tracking_id: sent.tracking_id },
      });
      expect(verifySignature(secret, req!.body, String(req!.headers['x-service-signature']))).toBe(true);
      // Logged once the attempt is recorded, which is just after the receiver answered.
      await until(
        'webhook_delivered',
        () => Promise.resolve(logs.some((l) => l.event === 'webhook_delivered')),
        (found) => found,
        30_000,
      );
      expect(JSON.stringify(logs)).not.toContain(secret);
    } finally {
      child.kill('SIGTERM');
      const [code] = (await once(child, 'exit')) as [number | null];
      expect(code).toBe(0);
    }
  });
});
