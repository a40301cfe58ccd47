// The chaos benchmark's faults that crash nothing, short (issue 28 item 6; the full run is `npm run
// bench -- chaos`): a dispatcher whose PostgreSQL silently drops every packet for 8 s (a
// TcpProxy in front of the shared server, blackholed: nothing answers, nothing fails), while another
// tenant's subscriptions are a tarpit (never answers) and a poison secret (sealed under a master key
// the dispatcher lacks), and campaign.sent records keep arriving for both tenants. The silence outlasts
// the client-side query timeout, so the queries in flight are cut by it, not by the network healing. Every record
// committed for the healthy tenant must reach its receiver exactly once,
// and deliveries must move again within 10 s of the packets flowing again.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDispatcher, type RunningDispatcher } from '@holdfast/dispatcher';
import {
  createOutboundClient,
  parseOutboundAllow,
  STRICT_OUTBOUND_POLICY,
  type Logger,
} from '@holdfast/platform';
import { createAccount, createWebhookSubscription } from '@holdfast/control-plane';
import { createPool } from '@holdfast/postgres';
import { listQuarantined } from '@holdfast/webhook-deliveries';
import { parseSecretsKeys, SecretsKeyring } from '@holdfast/secrets';
import {
  createTestEnv,
  startTarpitReceiver,
  TcpProxy,
  type TarpitReceiver,
  type TestEnv,
} from '@holdfast/testing';
import {
  CampaignStream,
  CountingReceiver,
  deliveryFindings,
  drainDeliveries,
} from '../bench/chaos-outbound.js';
import { RECOVERY_LIMIT_S } from '../bench/chaos.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
// Longer than the client-side query timeout (a 1 s statement_timeout + 5 s): the queries in flight when
// the packets stop must be cut by it, not wait for the network to heal.
const SILENT_S = 8;

let t: TestEnv;
let proxy: TcpProxy;
let receiver: CountingReceiver;
let tarpit: TarpitReceiver;
let dispatcher: RunningDispatcher | undefined;
const pools: { end(): Promise<void> }[] = [];

beforeAll(async () => {
  t = await createTestEnv('quietfaults');
  const url = new URL(t.databaseUrl);
  proxy = await TcpProxy.start(url.hostname, Number(url.port || 5432));
  receiver = await CountingReceiver.start();
  tarpit = await startTarpitReceiver();
});
afterAll(async () => {
  proxy?.forward();
  // The tarpit first: its attempts then fail at once instead of at their timeout, and the poll ends.
  await tarpit?.close();
  await dispatcher?.stop();
  for (const p of pools) await p.end();
  await receiver?.close();
  await proxy?.close();
  await t?.close();
});

describe('the dispatcher under the faults that crash nothing (short run)', () => {
  it(
    'delivers every record once through a silent PostgreSQL, a tarpit and a poison secret',
    { timeout: 120_000 },
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
      // The dispatcher's own wiring in this process (a process start costs a minute on a loaded
      // machine), its pool through the proxy with a 1 s statement_timeout (client-side deadline 6 s).
      const pool = createPool(viaProxy.toString(), 'quiet-faults-dispatcher', 6, {
        statementTimeoutMs: 1000,
      });
      pools.push(pool);
      const logger: Logger = {
        debug: () => {},
        info: () => {},
        warn: (msg, ctx) => void logs.push(`${msg} ${JSON.stringify(ctx ?? {})}`),
        error: (msg, ctx) => void logs.push(`${msg} ${JSON.stringify(ctx ?? {})}`),
        child: () => logger,
      };
      const logs: string[] = [];
      dispatcher = await startDispatcher(
        { topicPrefix: t.topicPrefix, pollIntervalMs: 1000, timeoutMs: 3_000, sessionTimeoutMs: 6_000 },
        {
          pool,
          kafka: t.kafka,
          codec: t.codec,
          logger,
          outbound: createOutboundClient({
            ...STRICT_OUTBOUND_POLICY,
            allowHttp: true,
            allow: parseOutboundAllow('127.0.0.1:*'),
          }),
        },
      );

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
      // The client-side deadline ended the waits on the silent connections.
      expect(logs.some((l) => l.includes('Query read timeout'))).toBe(true);
      expect((await listQuarantined(t.db)).map((q) => q.subscription_id)).toEqual([poison.id]);
      expect(tarpit.received()).toBeGreaterThan(0);
    },
  );
});
