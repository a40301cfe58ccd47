import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOutboundClient, parseOutboundAllow, STRICT_OUTBOUND_POLICY } from '@holdfast/platform';
import { TwilioAdapter } from '../../../src/campaigns/providers/twilio-adapter.js';

const SID = 'AC0123456789abcdef0123456789abcdef';
const TOKEN = 'test-auth-token-0123456789';

describe("SMS with Twilio's Messages API shape, against a local receiver", () => {
  let server: Server;
  let baseUrl: string;
  const got: { method?: string; path?: string; headers: IncomingHttpHeaders; form: URLSearchParams }[] = [];
  const answers: number[] = [];
  beforeAll(async () => {
    // The receiver checks what a Twilio-shaped API checks: the path, basic auth, a form body.
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
        got.push({ method: req.method, path: req.url, headers: req.headers, form });
        const auth = req.headers.authorization ?? '';
        const [user, pass] = Buffer.from(auth.replace(/^Basic /, ''), 'base64')
          .toString()
          .split(':');
        const status =
          answers.shift() ??
          (user !== SID || pass !== TOKEN
            ? 401
            : req.url !== `/2010-04-01/Accounts/${SID}/Messages.json` ||
                req.headers['content-type'] !== 'application/x-www-form-urlencoded' ||
                !form.get('To') ||
                !form.get('From') ||
                !form.get('Body')
              ? 400
              : 201);
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(status === 201 ? { sid: 'SM1', status: 'queued' } : { code: 20003 }));
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  const local = createOutboundClient({
    ...STRICT_OUTBOUND_POLICY,
    allowHttp: true,
    allow: parseOutboundAllow('127.0.0.1:*'),
  });
  const message = {
    trackingId: 'hft_0123456789abcdef01234567',
    campaignType: 'replenishment' as const,
    to: '+15550100002',
    ctaUrl:
      'https://shop.example.com/?utm_source=holdfast&utm_medium=sms&utm_campaign=replenishment&utm_content=hft_0123456789abcdef01234567',
    unsubscribeUrl: null,
  };

  it('given credentials, when sending, then it POSTs To/From/Body form-encoded with basic auth, ending with the opt-out text', async () => {
    const sms = new TwilioAdapter(
      'twilio',
      { baseUrl, accountSid: SID, from: '+15550109999' },
      TOKEN,
      local,
      2000,
    );
    expect(await sms.send(message)).toEqual({ ok: true, status: 201 });
    const req = got.at(-1)!;
    expect(req.method).toBe('POST');
    expect(req.path).toBe(`/2010-04-01/Accounts/${SID}/Messages.json`);
    expect(req.headers.authorization).toBe(`Basic ${Buffer.from(`${SID}:${TOKEN}`).toString('base64')}`);
    expect(Object.fromEntries(req.form)).toEqual({
      To: '+15550100002',
      From: '+15550109999',
      Body: `Going by your last orders, you may be running low soon. ${message.ctaUrl} Reply STOP to opt out.`,
    });
  });

  it('given a wrong token, then the 401 is a failure the caller classes as permanent', async () => {
    const sms = new TwilioAdapter(
      'twilio',
      { baseUrl, accountSid: SID, from: '+15550109999' },
      'wrong',
      local,
      2000,
    );
    expect(await sms.send(message)).toEqual({ ok: false, kind: 'http', status: 401 });
  });

  it('given a busy provider, then its 429 and 503 come back as they are (retriable)', async () => {
    const sms = new TwilioAdapter(
      'twilio',
      { baseUrl, accountSid: SID, from: '+15550109999' },
      TOKEN,
      local,
      2000,
    );
    answers.push(429, 503);
    expect(await sms.send(message)).toEqual({ ok: false, kind: 'http', status: 429 });
    expect(await sms.send(message)).toEqual({ ok: false, kind: 'http', status: 503 });
  });

  it('given the strict policy, then a loopback base URL is refused before anything is sent', async () => {
    const before = got.length;
    const strict = createOutboundClient(STRICT_OUTBOUND_POLICY);
    const sms = new TwilioAdapter('twilio', { baseUrl, accountSid: SID, from: '+1555' }, TOKEN, strict, 2000);
    expect(await sms.send(message)).toEqual({ ok: false, kind: 'outbound', failure: 'destination_refused' });
    expect(got).toHaveLength(before);
  });
});
