import { describe, expect, it } from 'vitest';
import { nextAttemptAt, RETRY_DELAYS_MS } from '../src/retry-schedule.js';
import { Webhook } from 'standardwebhooks';
import {
  signatureHeaders,
  signBody,
  standardSignature,
  standardSigningKey,
  verifySignature,
} from '../src/signature.js';
import { deliveryId } from '../src/delivery-id.js';
import { campaignSentBody } from '../src/campaign-consumer.js';

describe('signature', () => {
  const secret = 'whsec_test_secret';
  const body = campaignSentBody({ campaign_type: 'win_back', provider: 'mailer', tracking_id: 'hft_1' });

  it('is hex HMAC-SHA256 of the raw body keyed with the whole whsec_ secret', () => {
    // Reference value computed independently: printf '%s' "$body" | openssl dgst -sha256 -hmac whsec_test_secret
    expect(body).toBe(
      '{"event":"campaign.sent","data":{"campaign_type":"win_back","provider":"mailer","tracking_id":"hft_1"}}',
    );
    expect(signBody(secret, body)).toBe('ca18a5840ce8923924c46be0ad8468b9cf6550c8d88c1ef03e12210ef0c86bc3');
    expect(signBody(secret, body)).toBe(signBody(secret, Buffer.from(body)));
  });

  it('verifies the right signature and rejects tampering, other secrets and junk', () => {
    const sig = signBody(secret, body);
    expect(verifySignature(secret, body, sig)).toBe(true);
    expect(verifySignature(secret, body, sig.toUpperCase())).toBe(true);
    expect(verifySignature(secret, body.replace('win_back', 'vip'), sig)).toBe(false);
    expect(verifySignature('whsec_other', body, sig)).toBe(false);
    expect(verifySignature(secret, body, 'nothex')).toBe(false);
    expect(verifySignature(secret, body, '')).toBe(false);
  });
});

describe('retry schedule', () => {
  const t0 = new Date('2025-01-01T00:00:00.000Z');
  it('retries after 15, then 30, then 45 minutes, then gives up', () => {
    expect(RETRY_DELAYS_MS).toEqual([15 * 60_000, 30 * 60_000, 45 * 60_000]);
    expect(nextAttemptAt(1, t0)?.toISOString()).toBe('2025-01-01T00:15:00.000Z');
    expect(nextAttemptAt(2, t0)?.toISOString()).toBe('2025-01-01T00:30:00.000Z');
    expect(nextAttemptAt(3, t0)?.toISOString()).toBe('2025-01-01T00:45:00.000Z');
    expect(nextAttemptAt(4, t0)).toBeNull();
  });
});

describe('delivery id', () => {
  it('is a stable uuid per (subscription, tracking id)', () => {
    const a = deliveryId('3f1c9a52-0000-4000-8000-000000000001', 'hft_1');
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(deliveryId('3f1c9a52-0000-4000-8000-000000000001', 'hft_1')).toBe(a);
    expect(deliveryId('3f1c9a52-0000-4000-8000-000000000002', 'hft_1')).not.toBe(a);
    expect(deliveryId('3f1c9a52-0000-4000-8000-000000000001', 'hft_2')).not.toBe(a);
  });
});

describe('Standard Webhooks signatures', () => {
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

  it('matches the published test vector and the standardwebhooks package', () => {
    const sig = standardSignature(secret, 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}');
    expect(sig).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
    expect(sig).toBe(
      new Webhook(secret).sign(
        'msg_p5jXN8AQM9LWM0D4loKWxJek',
        new Date(1614265330_000),
        '{"test": 2432232314}',
      ),
    );
  });

  it('keys the spec header with the whole secret and webhook-signature with the decoded key, one entry per secret', () => {
    const other = 'whsec_' + 'A'.repeat(32);
    const h = signatureHeaders([secret, other], 'd-1', '{"a":1}', new Date(1_700_000_000_123));
    expect(h).toEqual({
      'x-service-signature': signBody(secret, '{"a":1}'),
      'webhook-id': 'd-1',
      'webhook-timestamp': '1700000000',
      'webhook-signature': `${standardSignature(secret, 'd-1', 1700000000, '{"a":1}')} ${standardSignature(other, 'd-1', 1700000000, '{"a":1}')}`,
    });
    expect(standardSigningKey(secret)).toHaveLength(24);
    expect(() => signatureHeaders([], 'd', 'b', new Date())).toThrow(
      'a delivery needs at least one signing secret',
    );
  });
});
