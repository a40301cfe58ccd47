import { describe, expect, it } from 'vitest';
import { twilioSignature, verifyTwilioSignature } from '../../src/consent/twilio-signature.js';

describe('X-Twilio-Signature', () => {
  // The worked example of Twilio's security documentation (auth token 12345).
  const url = 'https://mycompany.com/myapp.php?foo=1&bar=2';
  const params: [string, string][] = [
    ['CallSid', 'CA1234567890ABCDE'],
    ['Caller', '+12349013030'],
    ['Digits', '1234'],
    ['From', '+12349013030'],
    ['To', '+18005551212'],
  ];

  it('given the documented example, then the signature is the documented one', () => {
    expect(twilioSignature('12345', url, params)).toBe('0/KCTR6DLpKmkAf8muzZqo1nDgQ=');
  });

  it('given the parameters in any order, then the signature is the same; a changed value fails', () => {
    const sig = twilioSignature('12345', url, [...params].reverse());
    expect(verifyTwilioSignature('12345', url, params, sig)).toBe(true);
    expect(verifyTwilioSignature('12345', url, [...params.slice(1), ['CallSid', 'x']], sig)).toBe(false);
    expect(verifyTwilioSignature('other', url, params, sig)).toBe(false);
    expect(verifyTwilioSignature('12345', url, params, undefined)).toBe(false);
  });
});
