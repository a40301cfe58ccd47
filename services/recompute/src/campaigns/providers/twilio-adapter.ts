import type { TwilioSettings } from '@holdfast/control-plane';
import { composeSms, type ProviderAttempt } from '@holdfast/domain';
import type { OutboundClient } from '@holdfast/platform';
import { COPY } from '../campaign-types.js';
import { postThroughGuard, type CampaignMessage, type ProviderAdapter } from './provider-adapter.js';

/**
 * SMS through an API with Twilio's Messages shape: `POST {baseUrl}/2010-04-01/Accounts/{sid}/Messages.json`,
 * form-encoded `To`, `From`, `Body`, HTTP basic auth with the account SID and auth token; a 201
 * answers a queued message. The body ends with "Reply STOP to opt out." (`composeSms`). Through the
 * guarded outbound client like every call leaving the service.
 */
export class TwilioAdapter implements ProviderAdapter {
  readonly channel = 'sms' as const;
  /**
   * Twilio's Messages API documents no idempotency key (the `Idempotency-Key` header the guarded POST
   * carries is ignored there): a request repeated after a lost answer may send a second SMS.
   */
  readonly resendSafe = false;
  private readonly url: string;
  private readonly authorization: string;

  constructor(
    readonly provider: string,
    private readonly settings: TwilioSettings,
    authToken: string,
    private readonly client: OutboundClient,
    private readonly timeoutMs: number,
  ) {
    this.url = `${settings.baseUrl.replace(/\/+$/, '')}/2010-04-01/Accounts/${encodeURIComponent(settings.accountSid)}/Messages.json`;
    this.authorization = `Basic ${Buffer.from(`${settings.accountSid}:${authToken}`).toString('base64')}`;
  }

  send(m: CampaignMessage): Promise<ProviderAttempt> {
    const form = new URLSearchParams({
      To: m.to,
      From: this.settings.from,
      Body: composeSms(COPY[m.campaignType], m.ctaUrl),
    });
    return postThroughGuard(this.client, this.url, {
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: this.authorization,
        accept: 'application/json',
      },
      body: form.toString(),
      idempotencyKey: m.trackingId,
      timeoutMs: this.timeoutMs,
    });
  }
}
