// The chaos benchmark's faults that crash nothing, short (issue 28 item 6; the full run is `npm run
// bench -- chaos`): a dispatcher process whose PostgreSQL silently drops every packet for 6 s (a
// TcpProxy in front of the shared server, blackholed: nothing answers, nothing fails), while another
// tenant's subscriptions are a tarpit (never answers) and a poison secret (sealed under a master key
// the dispatcher lacks), and campaign.sent records keep arriving for both tenants. Every record
// committed for the healthy tenant must reach its receiver exactly once, the dispatcher must not exit,
// and deliveries must move again within 10 s of the packets flowing again.
import { createInterface } from 'node:readline';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createAccount,
  createWebhookSubscription,
  listQuarantined,
  parseSecretsKeys,
  SecretsKeyring,
} from '@holdfast/db';
import {
  createTestEnv,
  spawnTs,
  startTarpitReceiver,
  TcpProxy,
  type TarpitReceiver,
  type TestEnv,
} from '@holdfast/testing';
import type { ChildProcess } from 'node:child_process';
import {
  CampaignStream,
  CountingReceiver,
  deliveryFindings,
  drainDeliveries,
} from '../bench/chaos-outbound.js';
import { RECOVERY_LIMIT_S } from '../bench/chaos.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const SILENT_S = 6;

let t: TestEnv;
let proxy: TcpProxy;
let receiver: CountingReceiver;
let tarpit: TarpitReceiver;
let child: ChildProcess | undefined;

beforeAll(async () => {
  t = await createTestEnv('quietfaults');
  const url = new URL(t.databaseUrl);
  proxy = await TcpProxy.start(url.hostname, Number(url.port || 5432));
  receiver = await CountingReceiver.start();
  tarpit = await startTarpitReceiver();
});
afterAll(async () => {
  proxy?.forward();
  if (child && child.exitCode === null) {
    child.kill('SIGTERM');
    await new Promise((r) => child!.once('exit', r));
  }
  await tarpit?.close();
  await receiver?.close();
  await proxy?.close();
  await t?.close();
});

describe('the dispatcher under the faults that crash nothing (short run)', () => {
  it(
    'delivers every record once through a silent PostgreSQL, a tarpit and a poison secret',
    { timeout: 90_000 },
    async () => {
      const { id: healthy } = await createAccount(t.db, { name: 'Healthy shop' });
      const { id: noisy } = await createAccount(t.db, { name: 'Noisy shop' });
      await createWebhookSubscription(t.db, healthy, receiver.url);
      await createWebhookSubscription(t.db, noisy, tarpit.url);
      const gone = new SecretsKeyring(parseSecretsKeys(`gone:${randomBytes(32).toString('base64')}`));
      const poison = await createWebhookSubscription(t.db, noisy, `${tarpit.url}/poison`, gone);

      const viaProxy = new URL(t.databaseUrl);
      viaProxy.hostname = '127.0.0.1';
      viaProxy.port = String(proxy.port);
      child = spawnTs('services/dispatcher/src/main.ts', {
        ...t.env,
        DATABASE_URL: viaProxy.toString(),
        PORT: '0',
        LOG_LEVEL: 'info',
        DISPATCHER_TIMEOUT_MS: '3000',
        HOLDFAST_OUTBOUND_ALLOW_HTTP: 'true',
        HOLDFAST_OUTBOUND_ALLOW: '127.0.0.1:*',
      });
      let ready = false;
      const errors: string[] = [];
      createInterface({ input: child.stdout! }).on('line', (l) => {
        if (l.includes('"dispatcher_ready"')) ready = true;
        if (l.includes('"level":50') || l.includes('"level":60')) errors.push(l.slice(0, 300));
      });
      child.stderr!.on('data', (d: Buffer) => errors.push(d.toString().slice(0, 300)));
      const until = Date.now() + 60_000;
      while (!ready && Date.now() < until) await sleep(100);
      expect(ready, errors.join('\n')).toBe(true);

      let phase = 0;
      const healthyStream = await CampaignStream.create(
        t.kafka,
        t.codec,
        t.topicPrefix,
        healthy,
        8,
        () => phase,
      );
      const noisyStream = await CampaignStream.create(
        t.kafka,
        t.codec,
        t.topicPrefix,
        noisy,
        12,
        () => phase,
      );
      healthyStream.start();
      noisyStream.start();
      try {
        await sleep(4_000);
        // The tarpit holds its slots, the poison is parked: the healthy receiver kept up regardless.
        expect(receiver.longestGapS(Date.now() - 3_000, Date.now())).toBeLessThan(RECOVERY_LIMIT_S);
        phase = 1;
        proxy.blackhole();
        const silentFrom = Date.now();
        await sleep(SILENT_S * 1000);
        proxy.forward();
        const back = Date.now();
        // The fault bit: nothing new could be enqueued or recorded while PostgreSQL was silent.
        expect(receiver.longestGapS(silentFrom, back)).toBeGreaterThan(SILENT_S / 2);
        phase = 2;
        await sleep(6_000);
        const next = receiver.arrivalAfter(back);
        expect(next, 'a delivery after the packets flow again').not.toBeNull();
        const movedS = (next! - back) / 1000;
        console.info(`deliveries moved again ${movedS.toFixed(1)} s after PostgreSQL answered again`);
        expect(movedS).toBeLessThanOrEqual(RECOVERY_LIMIT_S);
      } finally {
        await healthyStream.stop();
        await noisyStream.stop();
      }
      await drainDeliveries(healthyStream, receiver, 20_000);
      expect(healthyStream.acked.size).toBeGreaterThan(50);
      expect(deliveryFindings(healthyStream, receiver)).toEqual({ findings: [], redelivered: 0 });
      expect(child.exitCode, errors.join('\n')).toBeNull();
      expect((await listQuarantined(t.db)).map((q) => q.subscription_id)).toEqual([poison.id]);
      expect(tarpit.received()).toBeGreaterThan(0);
    },
  );
});
