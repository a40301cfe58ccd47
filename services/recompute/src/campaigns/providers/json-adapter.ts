import { composeEmail, composeSms, type ProviderAttempt } from '@holdfast/domain';
import type { OutboundClient } from '@holdfast/platform';
import { COPY, type Channel } from '../campaign-types.js';
import { postThroughGuard, type CampaignMessage, type ProviderAdapter } from './provider-adapter.js';

/**
 * A provider reached by a generic JSON POST to its endpoint (`holdfast providers connect`): for an
 * in-house relay. Email: `{channel, to, subject, text, html, headers, tracking_id, campaign_type}`
 * with the unsubscribe headers in `headers`; SMS: `{channel, to, body, …}` ending with the opt-out
 * text. Real providers are `SmtpAdapter` and `TwilioAdapter`.
 */
export class JsonAdapter implements ProviderAdapter {
  /** The endpoint's contract: a repeated `Idempotency-Key` (the tracking id) is dropped, not sent twice. */
  readonly resendSafe = true;

  constructor(
    readonly provider: string,
    readonly channel: Channel,
    private readonly endpointUrl: string,
    private readonly client: OutboundClient,
    private readonly timeoutMs: number,
  ) {}

  send(m: CampaignMessage): Promise<ProviderAttempt> {
    const copy = COPY[m.campaignType];
    const common = { to: m.to, tracking_id: m.trackingId, campaign_type: m.campaignType };
    const body =
      this.channel === 'email'
        ? {
            channel: 'email',
            ...common,
            ...composeEmail(copy, {
              ctaUrl: m.ctaUrl,
              unsubscribeUrl: m.unsubscribeUrl ?? '',
              trackingId: m.trackingId,
            }),
          }
        : { channel: 'sms', ...common, body: composeSms(copy, m.ctaUrl) };
    return postThroughGuard(this.client, this.endpointUrl, {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      idempotencyKey: m.trackingId,
      timeoutMs: this.timeoutMs,
    });
  }
}
