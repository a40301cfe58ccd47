import { describe, expect, it } from 'vitest';
import { buildCtaUrl } from '../../src/campaigns/cta-url.js';
import { COPY } from '../../src/campaigns/campaign-types.js';

describe('call-to-action URL', () => {
  it('links to the storefront with utm_source=holdfast, medium, campaign and the tracking id', () => {
    expect(buildCtaUrl('Shop.Example.com', 'sms', 'replenishment', 'hft_0123456789abcdef01234567')).toBe(
      'https://shop.example.com/?utm_source=holdfast&utm_medium=sms&utm_campaign=replenishment&utm_content=hft_0123456789abcdef01234567',
    );
    expect(new URL(buildCtaUrl('https://shop.example.com/', 'email', 'vip', 'hft_x')).host).toBe(
      'shop.example.com',
    );
  });

  it('refuses a storefront that is not a bare domain (every link would be wrong)', () => {
    expect(() => buildCtaUrl('shop.example.com/path', 'email', 'vip', 'hft_x')).toThrow(/domain/);
    expect(() => buildCtaUrl('localhost', 'email', 'vip', 'hft_x')).toThrow(/domain/);
  });

  it('has copy for every campaign type and never offers a discount code', () => {
    for (const copy of Object.values(COPY))
      expect(JSON.stringify(copy)).not.toMatch(/discount|coupon|promo|code|%/i);
  });
});
