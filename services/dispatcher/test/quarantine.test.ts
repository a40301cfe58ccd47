import { describe, expect, it } from 'vitest';
import { SecretUnreadableError } from '@holdfast/secrets';
import { parkedError, quarantineReason } from '../src/quarantine.js';

describe('quarantineReason', () => {
  it('given an unreadable signing secret, when classified, then the subscription is quarantined with why', () => {
    const err = new SecretUnreadableError('no master key "gone" in HOLDFAST_SECRETS_KEYS');
    expect(quarantineReason(err)).toBe('secret_unreadable: no master key "gone" in HOLDFAST_SECRETS_KEYS');
  });

  it('given an error that is not the subscription’s own, when classified, then no quarantine', () => {
    const down = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    expect(quarantineReason(down)).toBeNull();
    expect(quarantineReason(new TypeError('x is undefined'))).toBeNull();
    expect(quarantineReason('a string')).toBeNull();
  });
});

describe('parkedError', () => {
  it('given a quarantine reason, when a delivery is parked, then it records the class, not the detail', () => {
    expect(parkedError('secret_unreadable: no master key "gone" in HOLDFAST_SECRETS_KEYS')).toBe(
      'subscription_quarantined: secret_unreadable',
    );
  });
});
