import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOutboundClient, parseOutboundAllow, STRICT_OUTBOUND_POLICY } from '@holdfast/platform';
import { adapterFor } from '../../../src/campaigns/providers/index.js';

describe('provider sends go through the guarded outbound client', () => {
  let server: Server;
  let url: string;
  const bodies: unknown[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        bodies.push({
          path: req.url,
          key: req.headers['idempotency-key'],
          body: JSON.parse(Buffer.concat(chunks).toString()),
        });
        res.writeHead(req.url === '/moved' ? 301 : 202, { location: 'http://169.254.169.254/' });
        res.end();
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  const message = {
    trackingId: 'hft_1',
    campaignType: 'win_back' as const,
    to: '+15550100',
    ctaUrl: 'https://shop.example.com/?utm_content=hft_1',
    unsubscribeUrl: null,
  };
  const env = (client: ReturnType<typeof createOutboundClient>) => ({
    client,
    policy: STRICT_OUTBOUND_POLICY,
    timeoutMs: 2000,
    testMode: false,
  });
  const json = (channel: 'email' | 'sms', endpointUrl: string) =>
    ({ provider: 'p', channel, kind: 'json', endpointUrl }) as const;

  it('refuses a provider endpoint on a private, loopback or plain-http address: nothing is sent', async () => {
    const strict = env(createOutboundClient(STRICT_OUTBOUND_POLICY));
    const sms = adapterFor(json('sms', `${url}/sms`), strict);
    expect(await sms.send(message)).toEqual({ ok: false, kind: 'outbound', failure: 'destination_refused' });
    const metadata = adapterFor(json('email', 'https://169.254.169.254/latest/meta-data'), strict);
    expect(
      await metadata.send({ ...message, to: 'a@example.com', unsubscribeUrl: 'https://hf.example.com/u/x' }),
    ).toEqual({ ok: false, kind: 'outbound', failure: 'destination_refused' });
    expect(bodies).toEqual([]);
  });

  it('sends to an allow-listed endpoint and refuses a redirect', async () => {
    const local = env(
      createOutboundClient({
        ...STRICT_OUTBOUND_POLICY,
        allowHttp: true,
        allow: parseOutboundAllow('127.0.0.1:*'),
      }),
    );
    const sms = adapterFor(json('sms', `${url}/sms`), local);
    expect(await sms.send(message)).toEqual({ ok: true, status: 202 });
    expect(bodies.at(-1)).toMatchObject({
      path: '/sms',
      key: 'hft_1',
      body: { channel: 'sms', to: '+15550100', body: expect.stringMatching(/Reply STOP to opt out\.$/) },
    });
    const moved = adapterFor(json('sms', `${url}/moved`), local);
    expect(await moved.send(message)).toEqual({ ok: false, kind: 'outbound', failure: 'redirect_refused' });
  });
});
