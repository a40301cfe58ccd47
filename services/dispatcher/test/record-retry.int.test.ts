// The receiver answered 2xx and the record write failed (every PostgreSQL connection dropped at that
// moment): the write is retried, so the delivery is recorded `delivered` at once and never sent again.
// Before, the poll failed, the claim was left to expire (60 s) and the receiver got it a second time.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, createWebhookSubscription } from '@holdfast/control-plane';
import { createPool } from '@holdfast/postgres';
import { listDeliveries } from '@holdfast/webhook-deliveries';
import { createOutboundClient, parseOutboundAllow, STRICT_OUTBOUND_POLICY } from '@holdfast/platform';
import {
  createTestEnv,
  TcpProxy,
  type TestEnv,
  appendCampaignSent,
  campaignSent,
  until,
} from '@holdfast/testing';
import { startDispatcher, type RunningDispatcher } from '../src/start-dispatcher.js';

let t: TestEnv;
let proxy: TcpProxy;
let pool: ReturnType<typeof createPool>;
let dispatcher: RunningDispatcher;
let server: Server;
let url = '';
const arrived: string[] = [];

beforeAll(async () => {
  t = await createTestEnv('disprecordretry');
  const u = new URL(t.databaseUrl);
  proxy = await TcpProxy.start(u.hostname, Number(u.port || 5432));
  u.hostname = '127.0.0.1';
  u.port = String(proxy.port);
  pool = createPool(u.toString(), 'record-retry', 4);
  // Answers 200 after dropping every connection of the dispatcher's pool: its record write fails.
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      arrived.push(body);
      proxy.cut();
      res.writeHead(200).end('{}');
      setTimeout(() => proxy.forward(), 300);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  dispatcher = await startDispatcher(
    { topicPrefix: t.topicPrefix, pollIntervalMs: 200, timeoutMs: 5_000, sessionTimeoutMs: 6_000 },
    {
      pool,
      kafka: t.kafka,
      codec: t.codec,
      outbound: createOutboundClient({
        ...STRICT_OUTBOUND_POLICY,
        allowHttp: true,
        allow: parseOutboundAllow('127.0.0.1:*'),
      }),
    },
  );
});
afterAll(async () => {
  proxy?.forward();
  await dispatcher?.stop();
  await pool?.end();
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  await proxy?.close();
  await t?.close();
});

describe('an attempt whose record write fails after the receiver answered', () => {
  it('is recorded delivered once the database answers again, and sent once', async () => {
    const { id: account } = await createAccount(t.db, { name: 'Record retry shop' });
    const sub = await createWebhookSubscription(t.db, account, url);
    const sent = campaignSent(account);
    await appendCampaignSent(t, [sent]);
    const [d] = await until(
      'the delivery to succeed',
      () => listDeliveries(t.db, sub.id),
      (l) => l[0]?.status === 'delivered',
      15_000,
    );
    expect(d).toMatchObject({ status: 'delivered', attempts: 1 });
    // A claim left to expire would send it again: it is not.
    await new Promise((r) => setTimeout(r, 1_000));
    expect(arrived).toHaveLength(1);
    expect(arrived[0]).toContain(sent.tracking_id);
  });
});
