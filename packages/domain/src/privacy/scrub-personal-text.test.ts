import { describe, expect, it } from 'vitest';
import { scrubPersonalText } from './scrub-personal-text.js';

describe('scrubPersonalText', () => {
  it('given a provider error quoting the address, then the address is gone and the rest stays', () => {
    expect(scrubPersonalText('550 5.1.1 <Ann.Lee+promo@Example.co.uk>: Recipient address rejected')).toBe(
      '550 5.1.1 <[email]>: Recipient address rejected',
    );
  });

  it('given phone numbers in any usual form, then each is [phone]; statuses, dates, ports and short codes stay', () => {
    expect(
      scrubPersonalText(
        'to +14155550100 / +44 20 7946 0958 / (415) 555-0100 / 415.555.0100 failed: 21211 at 2026-11-27 10:00 port 8080 code 503',
      ),
    ).toBe('to [phone] / [phone] / [phone] / [phone] failed: 21211 at 2026-11-27 10:00 port 8080 code 503');
  });

  it('given known personal values (the recipient, their name), then each is [redacted] wherever it appears, any case', () => {
    expect(
      scrubPersonalText('Invalid recipient ann lee (ANN@shop.example)', [
        'ann@shop.example',
        'Ann Lee',
        null,
        'x',
      ]),
    ).toBe('Invalid recipient [redacted] ([redacted])');
  });

  it('given a value with regular-expression characters, then it is matched literally', () => {
    expect(scrubPersonalText('bad a+b(c)*', ['a+b(c)*'])).toBe('bad [redacted]');
  });

  it('given a long text, then it is cut after scrubbing, so no address is half kept', () => {
    const long = `${'x'.repeat(495)} ann@example.com`;
    const out = scrubPersonalText(long);
    expect(out).toHaveLength(500);
    expect(out).not.toContain('ann@');
    expect(scrubPersonalText('provider_http_503')).toBe('provider_http_503');
  });
});
