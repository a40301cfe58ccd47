import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SmtpSettings } from '@holdfast/control-plane';
import { parseOutboundAllow, STRICT_OUTBOUND_POLICY, type OutboundPolicy } from '@holdfast/platform';
import { startSmtpReceiver, type SmtpReceiver } from '@holdfast/testing';
import { SmtpAdapter, smtpSendDeadlineMs } from '../../../src/campaigns/providers/smtp-adapter.js';

const CREDS = { user: 'shop-relay', pass: 'correct horse battery staple' };
const LOCAL = { ...STRICT_OUTBOUND_POLICY, allow: parseOutboundAllow('127.0.0.1:*,[::1]:*') };
const TRACKING = 'hft_0123456789abcdef01234567';
const CTA = `https://tea.example.com/?utm_source=holdfast&utm_medium=email&utm_campaign=win_back&utm_content=${TRACKING}`;
const UNSUBSCRIBE = 'https://hf.example.com/unsubscribe/AQJrMQ-token.mac_value-0123456';
const message = {
  trackingId: TRACKING,
  campaignType: 'win_back' as const,
  to: 'ada@example.com',
  ctaUrl: CTA,
  unsubscribeUrl: UNSUBSCRIBE,
};

describe('email over SMTP (nodemailer) against a real SMTP server with STARTTLS', () => {
  let server: SmtpReceiver;
  let plainServer: SmtpReceiver;
  beforeAll(async () => {
    server = await startSmtpReceiver(CREDS);
    plainServer = await startSmtpReceiver(CREDS, { hideSTARTTLS: true, allowInsecureAuth: true });
  });
  afterAll(async () => {
    await server.close();
    await plainServer.close();
  });

  const settings = (over: Partial<SmtpSettings> = {}): SmtpSettings => ({
    host: 'localhost',
    port: server.port,
    user: CREDS.user,
    from: 'Tea Shop <news@tea.example.com>',
    tls: 'starttls',
    ca: server.certPem,
    ...over,
  });
  const adapter = (
    s: SmtpSettings,
    password = CREDS.pass,
    o: { testMode?: boolean; policy?: OutboundPolicy } = {},
  ) =>
    new SmtpAdapter('smtp', s, password, {
      policy: o.policy ?? LOCAL,
      testMode: o.testMode ?? false,
      timeoutMs: 5_000,
    });

  it('given a STARTTLS relay, when sending, then the message arrives over TLS with the unsubscribe headers, the UTM link and an unsubscribe link', async () => {
    const res = await adapter(settings()).send(message);
    expect(res).toEqual({ ok: true, status: 250 });
    const got = server.received.at(-1)!;
    expect(got.secure).toBe(true);
    expect(got.user).toBe(CREDS.user);
    expect(got.mailFrom).toBe('news@tea.example.com');
    expect(got.rcptTo).toEqual(['ada@example.com']);
    const { mail } = got;
    expect(mail.subject).toBe('We have missed you');
    expect(mail.from?.value).toEqual([{ name: 'Tea Shop', address: 'news@tea.example.com' }]);
    expect(mail.messageId).toBe(`<${TRACKING}@holdfast>`);
    // RFC 2369 / RFC 8058, as they travel on the wire (unfolded: a long header may be folded)
    const head = got.raw.slice(0, got.raw.indexOf('\r\n\r\n')).replace(/\r\n[ \t]+/g, ' ');
    expect(head).toMatch(/^List-Unsubscribe: <https:\/\/hf\.example\.com\/unsubscribe\/[^>]+>\r$/m);
    expect(head).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click\r$/m);
    expect(head.match(/^List-Unsubscribe: <([^>]+)>/m)![1]).toBe(UNSUBSCRIBE);
    // mailparser reads the List-* headers into `list`
    expect(mail.headers.get('list')).toEqual({
      unsubscribe: { url: UNSUBSCRIBE },
      'unsubscribe-post': { name: 'List-Unsubscribe=One-Click' },
    });
    expect(mail.headers.get('x-holdfast-tracking-id')).toBe(TRACKING);
    // The call-to-action on the storefront with its utm parameters, and the unsubscribe link, in both bodies.
    expect(mail.text).toContain(`Visit the shop: ${CTA}`);
    expect(mail.text).toContain(`unsubscribe: ${UNSUBSCRIBE}`);
    const hrefs = [...String(mail.html).matchAll(/href="([^"]+)"/g)].map((m) => m[1]!.replace(/&#38;/g, '&'));
    expect(hrefs).toEqual([CTA, UNSUBSCRIBE]);
    const link = new URL(hrefs[0]!);
    expect(link.host).toBe('tea.example.com');
    expect(Object.fromEntries(link.searchParams)).toEqual({
      utm_source: 'holdfast',
      utm_medium: 'email',
      utm_campaign: 'win_back',
      utm_content: TRACKING,
    });
  });

  it('given a relay that offers no STARTTLS, when sending with the default (starttls), then nothing is sent: tls_failed', async () => {
    const before = plainServer.received.length;
    const res = await adapter(settings({ port: plainServer.port })).send(message);
    expect(res).toEqual({ ok: false, kind: 'outbound', failure: 'tls_failed' });
    expect(plainServer.received).toHaveLength(before);
  });

  it('given tls none, then it is refused outside test mode and sends in clear in test mode', async () => {
    const s = settings({ port: plainServer.port, tls: 'none', ca: null });
    expect(await adapter(s).send(message)).toEqual({ ok: false, kind: 'outbound', failure: 'tls_failed' });
    expect(await adapter(s, CREDS.pass, { testMode: true }).send(message)).toEqual({ ok: true, status: 250 });
    expect(plainServer.received.at(-1)!.secure).toBe(false);
  });

  it('given a certificate nobody vouches for (no ca), then the TLS upgrade fails and nothing is sent', async () => {
    const before = server.received.length;
    expect(await adapter(settings({ ca: null })).send(message)).toEqual({
      ok: false,
      kind: 'outbound',
      failure: 'tls_failed',
    });
    expect(server.received).toHaveLength(before);
  });

  it('given a wrong password, then the 535 reply is recorded as an SMTP failure', async () => {
    expect(await adapter(settings(), 'wrong').send(message)).toEqual({
      ok: false,
      kind: 'smtp',
      status: 535,
    });
  });

  it('given a 451 or 550 to RCPT TO, then the reply code comes back (transient, permanent)', async () => {
    server.refuseRcpt.push(451);
    expect(await adapter(settings()).send(message)).toEqual({ ok: false, kind: 'smtp', status: 451 });
    server.refuseRcpt.push(550);
    expect(await adapter(settings()).send(message)).toEqual({ ok: false, kind: 'smtp', status: 550 });
  });

  it('given the strict outbound policy, then a relay on a loopback address is refused before connecting', async () => {
    const before = server.received.length;
    expect(await adapter(settings(), CREDS.pass, { policy: STRICT_OUTBOUND_POLICY }).send(message)).toEqual({
      ok: false,
      kind: 'outbound',
      failure: 'destination_refused',
    });
    expect(server.received).toHaveLength(before);
  });
});

describe('the total deadline of an SMTP send', () => {
  it('given the default, then a send may take three times the inactivity limit', () => {
    expect(smtpSendDeadlineMs(10_000)).toBe(30_000);
    expect(smtpSendDeadlineMs(1_500)).toBe(4_500);
  });

  it('given a relay that greets and then trickles its answer to EHLO one byte a second (never idle long enough for the inactivity limit), then the send ends at its deadline as a timeout and the connection is destroyed', async () => {
    const ehloAnswer = '250-relay.example.com at your service\r\n250 AUTH PLAIN LOGIN\r\n';
    let closedAt: number | null = null;
    const sockets = new Set<Socket>();
    const relay = createServer((socket) => {
      sockets.add(socket);
      let drip: NodeJS.Timeout | undefined;
      socket.write('220 relay.example.com ESMTP\r\n');
      socket.on('data', () => {
        let i = 0;
        drip ??= setInterval(() => {
          if (i < ehloAnswer.length) socket.write(ehloAnswer[i++]!);
        }, 1_000);
      });
      socket.on('error', () => {});
      socket.on('close', () => {
        clearInterval(drip);
        closedAt = Date.now();
      });
    });
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
    const { port } = relay.address() as AddressInfo;
    try {
      const adapter = new SmtpAdapter(
        'smtp',
        { host: '127.0.0.1', port, user: CREDS.user, from: 'news@tea.example.com', tls: 'none', ca: null },
        CREDS.pass,
        // A byte a second keeps a 1.5 s inactivity limit from ever firing: only the deadline can end it.
        { policy: LOCAL, testMode: true, timeoutMs: 1_500, sendDeadlineMs: 3_000 },
      );
      const started = Date.now();
      const res = await adapter.send(message);
      const tookMs = Date.now() - started;
      expect(res).toEqual({ ok: false, kind: 'outbound', failure: 'timeout' });
      expect(tookMs).toBeGreaterThanOrEqual(2_900);
      expect(tookMs).toBeLessThan(4_500);
      // The relay sees the connection go: destroyed by the deadline, not left open.
      for (let n = 0; n < 20 && closedAt === null; n++) await new Promise((r) => setTimeout(r, 50));
      expect(closedAt).not.toBeNull();
      expect(closedAt! - started).toBeLessThan(4_500);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => relay.close(() => resolve()));
    }
  });
});
