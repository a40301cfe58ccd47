import { describe, expect, it } from 'vitest';
import { rateLimitAddress } from '../../src/limits/client-ip.js';

describe('rateLimitAddress', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['::FFFF:cb00:7107', '203.0.113.7'],
    ['2001:db8:1:2:aaaa:bbbb:cccc:dddd', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::1', '2001:db8:1:2::/64'],
    ['2001:DB8:1:2::ffff', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['64:ff9b::192.0.2.1', '64:ff9b:0:0::/64'],
    ['not an ip', 'unknown'],
    [undefined, 'unknown'],
  ])('given %s, when counted, then the bucket is %s', (ip, bucket) => {
    expect(rateLimitAddress(ip)).toBe(bucket);
  });

  it('given two addresses of one /64, when counted, then they share a bucket; the next /64 does not', () => {
    expect(rateLimitAddress('2001:db8:14:1::a')).toBe(rateLimitAddress('2001:db8:14:1:ffff:ffff:ffff:ffff'));
    expect(rateLimitAddress('2001:db8:14:2::a')).not.toBe(rateLimitAddress('2001:db8:14:1::a'));
  });
});
