import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyAddress } from './address-class.js';
import {
  STRICT_OUTBOUND_POLICY,
  checkOutboundUrl,
  createOutboundClient,
  parseOutboundAllow,
  readOutboundPolicy,
  type OutboundPolicy,
  type ResolveAll,
} from './outbound-http.js';
import { EnvReader } from './config.js';

describe('classifyAddress', () => {
  it.each([
    ['93.184.216.34', 'public'],
    ['8.8.8.8', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['172.32.0.1', 'public'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link_local'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.255', 'cgnat'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fd00::1', 'unique_local'],
    ['fc12:3456::1', 'unique_local'],
    ['fe80::1', 'link_local'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:169.254.169.254', 'link_local'],
    ['::ffff:8.8.8.8', 'public'],
    ['64:ff9b::a00:1', 'private'],
    ['2002:0a00:0001::1', 'private'],
    ['2001:db8::1', 'reserved'],
    ['2606:4700:4700::1111', 'public'],
    ['[2606:4700:4700::1111]', 'public'],
    ['not-an-ip', 'invalid'],
  ])('%s is %s', (ip, cls) => expect(classifyAddress(ip)).toBe(cls));
});

describe('checkOutboundUrl (at creation and before every call)', () => {
  const dev: OutboundPolicy = {
    ...STRICT_OUTBOUND_POLICY,
    allowHttp: true,
    allow: parseOutboundAllow('127.0.0.1:*'),
  };
  it.each([
    ['https://hooks.example.com/x', STRICT_OUTBOUND_POLICY, null],
    ['http://hooks.example.com/x', STRICT_OUTBOUND_POLICY, 'only https:// URLs are allowed'],
    ['ftp://hooks.example.com/x', dev, 'only http:// and https:// URLs are allowed'],
    ['nonsense', STRICT_OUTBOUND_POLICY, '"nonsense" is not a URL'],
    ['https://user:pw@hooks.example.com/', STRICT_OUTBOUND_POLICY, 'credentials in the URL are not allowed'],
    [
      'https://169.254.169.254/latest',
      STRICT_OUTBOUND_POLICY,
      '169.254.169.254 is not a public address (link-local)',
    ],
    ['https://10.0.0.8/', STRICT_OUTBOUND_POLICY, '10.0.0.8 is not a public address (private)'],
    [
      'https://[::ffff:127.0.0.1]/',
      STRICT_OUTBOUND_POLICY,
      '::ffff:7f00:1 is not a public address (loopback)',
    ],
    ['https://[fd00::1]/', STRICT_OUTBOUND_POLICY, 'fd00::1 is not a public address (unique-local)'],
    ['https://0x7f000001/', STRICT_OUTBOUND_POLICY, '127.0.0.1 is not a public address (loopback)'],
    ['https://localhost:8443/', STRICT_OUTBOUND_POLICY, 'localhost is not a public address (loopback)'],
    ['http://127.0.0.1:9999/x', dev, null],
    ['http://localhost:9999/x', dev, null],
    ['http://10.0.0.8/x', dev, '10.0.0.8 is not a public address (private)'],
  ])('%s', (url, policy, answer) => expect(checkOutboundUrl(url, policy)).toBe(answer));

  it('reads the policy from the environment and refuses a malformed allow-list', () => {
    const p = readOutboundPolicy(
      new EnvReader({
        HOLDFAST_OUTBOUND_ALLOW: '127.0.0.1:*, [::1]:8080',
        HOLDFAST_OUTBOUND_ALLOW_HTTP: 'true',
      }),
    );
    expect(p).toEqual({
      allowHttp: true,
      allow: [
        { address: '127.0.0.1', port: '*' },
        { address: '::1', port: 8080 },
      ],
      connectTimeoutMs: 5000,
      maxResponseBytes: 65536,
    });
    expect(readOutboundPolicy(new EnvReader({}))).toEqual(STRICT_OUTBOUND_POLICY);
    expect(() => readOutboundPolicy(new EnvReader({ HOLDFAST_OUTBOUND_ALLOW: 'localhost:*' }))).toThrow(
      'invalid configuration: HOLDFAST_OUTBOUND_ALLOW: "localhost:*" is not an allow-list entry like 127.0.0.1:* or [::1]:8080',
    );
  });
});

describe('the guarded client against real local servers', () => {
  let server: Server;
  let port: number;
  const hits: string[] = [];
  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res: ServerResponse) => {
      hits.push(req.url ?? '');
      if (req.url === '/redirect') {
        res.writeHead(302, { location: 'http://169.254.169.254/' });
        res.end();
        return;
      }
      if (req.url === '/big') {
        res.writeHead(200);
        res.end(Buffer.alloc(200_000, 'x'));
        return;
      }
      if (req.url === '/hang') return;
      if (req.url === '/trickle') {
        // Headers at once, then a byte every 100 ms, never ending: never idle, never done.
        res.writeHead(200);
        const drip = setInterval(() => res.write('x'), 100);
        res.on('close', () => clearInterval(drip));
        return;
      }
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        res.writeHead(201, { 'content-type': 'text/plain' });
        res.end(`got ${Buffer.concat(chunks).toString()}`);
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  const local = (): OutboundPolicy => ({
    ...STRICT_OUTBOUND_POLICY,
    allowHttp: true,
    allow: parseOutboundAllow(`127.0.0.1:${port}`),
  });
  // A DNS server that answers whatever the test says (here: a public name pointing at loopback).
  const dns =
    (address: string): ResolveAll =>
    (_h, _o, cb) =>
      cb(null, [{ address, family: 4 }]);

  it('posts to an allow-listed local receiver and returns the answer', async () => {
    const res = await createOutboundClient(local()).request(`http://127.0.0.1:${port}/ok`, {
      method: 'POST',
      body: 'hello',
      timeoutMs: 2000,
    });
    expect([res.status, res.body.toString()]).toEqual([201, 'got hello']);
  });

  it('refuses loopback by default, before any packet is sent', async () => {
    const before = hits.length;
    const strictButHttp = { ...STRICT_OUTBOUND_POLICY, allowHttp: true };
    await expect(
      createOutboundClient(strictButHttp).request(`http://127.0.0.1:${port}/x`, { timeoutMs: 2000 }),
    ).rejects.toMatchObject({
      failure: 'destination_refused',
      isRetriable: false,
      message: '127.0.0.1 is not a public address (loopback)',
    });
    await expect(
      createOutboundClient(STRICT_OUTBOUND_POLICY).request(`http://127.0.0.1:${port}/x`, { timeoutMs: 2000 }),
    ).rejects.toMatchObject({ failure: 'destination_refused', message: 'only https:// URLs are allowed' });
    expect(hits.length).toBe(before);
  });

  it('checks the address actually connected to: a public name resolving to loopback is refused at connect time', async () => {
    const before = hits.length;
    const strictButHttp = { ...STRICT_OUTBOUND_POLICY, allowHttp: true };
    await expect(
      createOutboundClient(strictButHttp, { resolve: dns('127.0.0.1') }).request(
        `http://rebind.example.com:${port}/x`,
        { timeoutMs: 2000 },
      ),
    ).rejects.toMatchObject({
      failure: 'destination_refused',
      message: 'rebind.example.com resolves to a loopback address',
    });
    expect(hits.length).toBe(before);
    // The same name, allow-listed address: the connection goes to the address the check passed.
    const res = await createOutboundClient(local(), { resolve: dns('127.0.0.1') }).request(
      `http://rebind.example.com:${port}/named`,
      { timeoutMs: 2000 },
    );
    expect(res.status).toBe(201);
    expect(hits.at(-1)).toBe('/named');
  });

  it('refuses redirects, cuts large answers, times out, and hides why a connection failed', async () => {
    const c = createOutboundClient({ ...local(), maxResponseBytes: 1024 });
    await expect(c.request(`http://127.0.0.1:${port}/redirect`, { timeoutMs: 2000 })).rejects.toMatchObject({
      failure: 'redirect_refused',
      message: 'answered 302; redirects are not followed',
    });
    await expect(c.request(`http://127.0.0.1:${port}/big`, { timeoutMs: 2000 })).rejects.toMatchObject({
      failure: 'response_too_large',
    });
    const started = Date.now();
    await expect(c.request(`http://127.0.0.1:${port}/hang`, { timeoutMs: 300 })).rejects.toMatchObject({
      failure: 'timeout',
      message: 'no answer within 300 ms',
    });
    expect(Date.now() - started).toBeLessThan(2000);
    // The deadline covers the whole call, the body too: an answer that trickles forever is cut off.
    const trickleStarted = Date.now();
    await expect(c.request(`http://127.0.0.1:${port}/trickle`, { timeoutMs: 500 })).rejects.toMatchObject({
      failure: 'timeout',
      message: 'no answer within 500 ms',
    });
    expect(Date.now() - trickleStarted).toBeLessThan(1500);
    // A closed port: ECONNREFUSED underneath, stored only as the generic class.
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const any = createOutboundClient({ ...local(), allow: parseOutboundAllow('127.0.0.1:*') });
    await expect(any.request(`http://127.0.0.1:${closedPort}/`, { timeoutMs: 2000 })).rejects.toMatchObject({
      failure: 'connection_failed',
      message: 'the connection failed',
      isRetriable: true,
    });
  });
});
