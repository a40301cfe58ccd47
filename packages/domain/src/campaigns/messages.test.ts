import { describe, expect, it } from 'vitest';
import {
  composeEmail,
  composeSms,
  ONE_CLICK_POST,
  SMS_OPT_OUT_TEXT,
  TRACKING_HEADER,
} from './compose-message.js';
import { classifyProviderFailure, decideSendRetry, type ProviderAttempt } from './provider-failure.js';
import { smsKeyword } from './sms-keywords.js';
import { utmLink } from './utm-link.js';

const copy = { subject: 'We have missed you', text: 'See what is new <here>.', cta: 'Visit the shop' };
const links = {
  ctaUrl: 'https://shop.example.com/?utm_source=holdfast&utm_content=hft_1',
  unsubscribeUrl: 'https://hf.example.com/unsubscribe/u1.abc',
  trackingId: 'hft_1',
};

describe('composeEmail', () => {
  it('given a copy and links, when composed, then it carries the RFC 8058 one-click headers', () => {
    const m = composeEmail(copy, links);
    expect(m.headers).toEqual({
      'List-Unsubscribe': '<https://hf.example.com/unsubscribe/u1.abc>',
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
      [TRACKING_HEADER]: 'hft_1',
    });
    expect(ONE_CLICK_POST).toBe('List-Unsubscribe=One-Click');
    expect(m.subject).toBe('We have missed you');
  });

  it('given links, when composed, then both bodies hold the call-to-action and the unsubscribe link', () => {
    const m = composeEmail(copy, links);
    expect(m.text).toContain(`Visit the shop: ${links.ctaUrl}`);
    expect(m.text).toContain(`unsubscribe: ${links.unsubscribeUrl}`);
    expect(m.html).toContain('href="https://shop.example.com/?utm_source=holdfast&#38;utm_content=hft_1"');
    expect(m.html).toContain(`href="${links.unsubscribeUrl}"`);
    // the copy is escaped, never markup
    expect(m.html).toContain('See what is new &#60;here&#62;.');
  });

  it('given an unsubscribe link that is no http(s) URL, when composed, then it throws', () => {
    expect(() => composeEmail(copy, { ...links, unsubscribeUrl: 'mailto:x@example.com' })).toThrow(
      'the unsubscribe URL must be an http(s) URL',
    );
  });
});

describe('composeSms', () => {
  it('given a copy and a link, when composed, then the opt-out text comes last', () => {
    const body = composeSms(copy, links.ctaUrl);
    expect(body).toBe(`See what is new <here>. ${links.ctaUrl} Reply STOP to opt out.`);
    expect(body.endsWith(SMS_OPT_OUT_TEXT)).toBe(true);
  });
});

describe('utmLink', () => {
  it('given a storefront host, when tagged, then it carries the four utm parameters on https', () => {
    expect(utmLink('shop.example.com', { channel: 'sms', campaignType: 'vip', trackingId: 'hft_0a' })).toBe(
      'https://shop.example.com/?utm_source=holdfast&utm_medium=sms&utm_campaign=vip&utm_content=hft_0a',
    );
  });

  it.each(['shop.example.com/path', 'user@shop.example.com', 'https://shop.example.com'])(
    'given %s (not a bare host), when tagged, then it throws',
    (host) => {
      expect(() => utmLink(host, { channel: 'email', campaignType: 'vip', trackingId: 'hft_0a' })).toThrow(
        'is not a bare storefront host name',
      );
    },
  );
});

describe('smsKeyword', () => {
  it.each(['STOP', 'stop', ' Stop. ', 'STOPALL', 'unsubscribe', 'Cancel', 'END', 'quit!'])(
    'given the reply %j, then it is an opt-out',
    (body) => expect(smsKeyword(body)).toBe('opt_out'),
  );
  it.each(['START', 'unstop', 'yes'])('given %j, then it is an opt-in', (body) =>
    expect(smsKeyword(body)).toBe('opt_in'),
  );
  it.each(['HELP', 'info'])('given %j, then it asks for help', (body) =>
    expect(smsKeyword(body)).toBe('help'),
  );
  it.each(['stop by tomorrow', 'please stop', 'STOP ALL', '', 'ST0P'])(
    'given %j (no keyword alone), then it is nothing',
    (body) => expect(smsKeyword(body)).toBeNull(),
  );
});

describe('provider failures and retries', () => {
  const cases: [ProviderAttempt, 'retriable' | 'permanent', string][] = [
    [{ ok: false, kind: 'http', status: 503 }, 'retriable', 'provider_http_503'],
    [{ ok: false, kind: 'http', status: 429 }, 'retriable', 'provider_http_429'],
    [{ ok: false, kind: 'http', status: 408 }, 'retriable', 'provider_http_408'],
    [{ ok: false, kind: 'http', status: 401 }, 'permanent', 'provider_http_401'],
    [{ ok: false, kind: 'http', status: 400 }, 'permanent', 'provider_http_400'],
    [{ ok: false, kind: 'smtp', status: 421 }, 'retriable', 'provider_smtp_421'],
    [{ ok: false, kind: 'smtp', status: 451 }, 'retriable', 'provider_smtp_451'],
    [{ ok: false, kind: 'smtp', status: 550 }, 'permanent', 'provider_smtp_550'],
    [{ ok: false, kind: 'outbound', failure: 'timeout' }, 'retriable', 'provider_timeout'],
    [
      { ok: false, kind: 'outbound', failure: 'connection_failed' },
      'retriable',
      'provider_connection_failed',
    ],
    [
      { ok: false, kind: 'outbound', failure: 'destination_refused' },
      'permanent',
      'provider_destination_refused',
    ],
    [{ ok: false, kind: 'outbound', failure: 'tls_failed' }, 'permanent', 'provider_tls_failed'],
  ];
  it.each(cases)('given %j, then it is %s as %s', (attempt, kind, errorClass) => {
    expect(classifyProviderFailure(attempt as Exclude<ProviderAttempt, { ok: true }>)).toEqual({
      kind,
      errorClass,
    });
  });

  it('given a success, when decided, then the send is sent', () => {
    expect(decideSendRetry({ ok: true, status: 250 }, 1, 3)).toEqual({ next: 'done', status: 'sent' });
  });
  it('given a retriable failure before the last attempt, then it is retried', () => {
    expect(decideSendRetry({ ok: false, kind: 'http', status: 503 }, 2, 3)).toEqual({
      next: 'retry',
      failure: { kind: 'retriable', errorClass: 'provider_http_503' },
    });
  });
  it('given a retriable failure on the last attempt, then the send fails', () => {
    expect(decideSendRetry({ ok: false, kind: 'http', status: 503 }, 3, 3)).toEqual({
      next: 'done',
      status: 'failed',
      failure: { kind: 'retriable', errorClass: 'provider_http_503' },
    });
  });
  it('given a permanent failure on the first attempt, then the send fails at once', () => {
    expect(decideSendRetry({ ok: false, kind: 'smtp', status: 550 }, 1, 5)).toEqual({
      next: 'done',
      status: 'failed',
      failure: { kind: 'permanent', errorClass: 'provider_smtp_550' },
    });
  });
});
