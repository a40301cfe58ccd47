import { describe, expect, it } from 'vitest';
import { decideSend, type RecentSend, type SendCustomer, type SendSettings } from './decide-send.js';
import { sendsOnTrigger } from './send-trigger.js';

const NOW = new Date('2026-11-24T02:00:00Z');
const daysAgo = (d: number): Date => new Date(NOW.getTime() - d * 86_400_000);

const customer = (over: Partial<SendCustomer> = {}): SendCustomer => ({
  isHoldout: false,
  hasEmail: true,
  emailConsent: true,
  emailSuppressed: false,
  hasPhone: false,
  smsConsent: false,
  ...over,
});
const settings = (over: Partial<SendSettings> = {}): SendSettings => ({
  enabledTypes: new Set(['win_back']),
  frequencyCap: { messages: 1, days: 7 },
  cooldownDays: 30,
  channels: new Set(['email', 'sms']),
  sandbox: false,
  ...over,
});

describe('decideSend', () => {
  const cases: [
    string,
    { c?: Partial<SendCustomer>; s?: Partial<SendSettings>; recent?: RecentSend[] },
    string,
    string?,
  ][] = [
    ['a consenting email customer of an enabled type', {}, 'send', 'email'],
    ['a type the account has not enabled', { s: { enabledTypes: new Set(['vip']) } }, 'disabled'],
    ['nothing enabled (the default)', { s: { enabledTypes: new Set() } }, 'disabled'],
    [
      'the same type 10 days ago',
      { recent: [{ campaignType: 'win_back', at: daysAgo(10) }] },
      'cooling_down',
    ],
    [
      'the same type 31 days ago, another 8 days ago',
      {
        recent: [
          { campaignType: 'win_back', at: daysAgo(31) },
          { campaignType: 'vip', at: daysAgo(8) },
        ],
      },
      'send',
      'email',
    ],
    [
      'another type 6 days ago (cap 1 per 7 days)',
      { recent: [{ campaignType: 'vip', at: daysAgo(6) }] },
      'capped',
    ],
    [
      'another type 6 days ago with a cap of 2 per 7 days',
      { s: { frequencyCap: { messages: 2, days: 7 } }, recent: [{ campaignType: 'vip', at: daysAgo(6) }] },
      'send',
      'email',
    ],
    ['no email consent, no phone', { c: { emailConsent: false } }, 'no_consent'],
    ['email consent but suppressed', { c: { emailSuppressed: true } }, 'suppressed'],
    [
      'suppressed email but SMS consent',
      { c: { emailSuppressed: true, hasPhone: true, smsConsent: true } },
      'send',
      'sms',
    ],
    ['SMS consent without a phone', { c: { emailConsent: false, smsConsent: true } }, 'no_consent'],
    ['email consent but only SMS connected', { s: { channels: new Set(['sms']) } }, 'no_consent'],
    ['a holdout customer', { c: { isHoldout: true } }, 'held_out', 'email'],
    [
      'a capped holdout customer (the cap applies to both arms)',
      { c: { isHoldout: true }, recent: [{ campaignType: 'vip', at: daysAgo(1) }] },
      'capped',
    ],
    ['a holdout customer without consent', { c: { isHoldout: true, emailConsent: false } }, 'no_consent'],
    ['a sandbox account', { s: { sandbox: true, channels: new Set() } }, 'sandbox_simulated', 'email'],
    [
      'a sandbox account, holdout customer',
      { c: { isHoldout: true }, s: { sandbox: true } },
      'held_out',
      'email',
    ],
    [
      'a decision dated in the future is ignored',
      { recent: [{ campaignType: 'vip', at: new Date(NOW.getTime() + 1000) }] },
      'send',
      'email',
    ],
  ];
  it.each(cases)('given %s, then %s', (_given, { c, s, recent }, kind, channel) => {
    const d = decideSend(customer(c), { type: 'win_back' }, settings(s), recent ?? [], NOW);
    expect(d.kind).toBe(kind);
    expect('channel' in d ? d.channel : undefined).toBe(channel);
  });
});

describe('sendsOnTrigger', () => {
  it.each([
    ['api', undefined, false],
    ['nightly', undefined, true],
    ['cli', undefined, true],
    ['nightly', { enabledTypes: new Set<string>() }, false],
    ['cli', { enabledTypes: new Set(['vip']) }, true],
    ['api', { enabledTypes: new Set(['vip']) }, false],
    ['unknown', undefined, false],
  ] as const)('given trigger %s and settings %o, then send = %s', (trigger, s, expected) => {
    expect(sendsOnTrigger(trigger, s)).toBe(expected);
  });
});
