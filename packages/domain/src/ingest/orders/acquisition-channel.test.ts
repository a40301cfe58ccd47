import { describe, expect, it } from 'vitest';
import { CAMPAIGN_CHANNEL, acquisitionChannel, isLandingUrl } from './acquisition-channel.js';

describe('acquisitionChannel (spec rule 10)', () => {
  it.each([
    ['email', 'email'],
    ['paid_social', 'paid_social'],
    ['  organic ', 'organic'],
    ['sms', 'sms'],
  ])('given the source label %j, when classified, then the channel is the label %j', (source, channel) => {
    expect(acquisitionChannel(source)).toBe(channel);
  });

  it.each([
    'https://shop.example.com/products/tea?utm_source=holdfast&utm_content=t_123',
    'http://shop.example.com/',
    'HTTPS://Shop.Example.com/landing',
    ' https://shop.example.com/?utm_medium=email',
  ])('given a full landing URL %j, when classified, then the channel is campaign', (source) => {
    expect(acquisitionChannel(source)).toBe(CAMPAIGN_CHANNEL);
    expect(isLandingUrl(source)).toBe(true);
  });

  it.each([
    'shop.example.com/landing?utm_content=t1',
    '/products/tea?utm_content=t1',
    'utm_content=t1',
    'https://',
  ])('given %j (no scheme and host), when classified, then it stays a label', (source) => {
    expect(acquisitionChannel(source)).toBe(source);
    expect(isLandingUrl(source)).toBe(false);
  });

  it('given no source or a blank one, when classified, then there is no channel', () => {
    expect(acquisitionChannel(null)).toBeNull();
    expect(acquisitionChannel('   ')).toBeNull();
  });
});
