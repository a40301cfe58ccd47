import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOutboundClient, parseOutboundAllow, STRICT_OUTBOUND_POLICY } from '@holdfast/platform';
import { adapterFor } from './index.js';

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
  };

  it('refuses a provider endpoint on a private, loopback or plain-http address: nothing is sent', async () => {
    const strict = createOutboundClient(STRICT_OUTBOUND_POLICY);
    const sms = adapterFor({ provider: 'p', channel: 'sms', endpoint_url: `${url}/sms` }, strict, 2000);
    expect(await sms.send(message)).toEqual({
      ok: false,
      statusCode: null,
      error: 'provider_destination_refused',
    });
    const metadata = adapterFor(
      { provider: 'p', channel: 'email', endpoint_url: 'https://169.254.169.254/latest/meta-data' },
      strict,
      2000,
    );
    expect(await metadata.send({ ...message, to: 'a@example.com' })).toEqual({
      ok: false,
      statusCode: null,
      error: 'provider_destination_refused',
    });
    expect(bodies).toEqual([]);
  });

  it('sends to an allow-listed endpoint and refuses a redirect', async () => {
    const local = createOutboundClient({
      ...STRICT_OUTBOUND_POLICY,
      allowHttp: true,
      allow: parseOutboundAllow('127.0.0.1:*'),
    });
    const sms = adapterFor({ provider: 'p', channel: 'sms', endpoint_url: `${url}/sms` }, local, 2000);
    expect(await sms.send(message)).toEqual({ ok: true, statusCode: 202, error: null });
    expect(bodies.at(-1)).toMatchObject({
      path: '/sms',
      key: 'hft_1',
      body: { channel: 'sms', to: '+15550100' },
    });
    const moved = adapterFor({ provider: 'p', channel: 'sms', endpoint_url: `${url}/moved` }, local, 2000);
    expect(await moved.send(message)).toEqual({
      ok: false,
      statusCode: 301,
      error: 'provider_redirect_refused',
    });
  });
});
