import type { OutboundClient } from '@holdfast/platform';
import { COPY } from '../campaign-types.js';
import {
  postJson,
  type CampaignMessage,
  type ProviderAdapter,
  type ProviderResult,
} from './provider-adapter.js';

/**
 * An SMS provider reached over JSON: POST endpoint_url with
 * `{channel:'sms', to, body, tracking_id, campaign_type}`; the body ends with the call-to-action URL.
 */
export class SmsAdapter implements ProviderAdapter {
  readonly channel = 'sms' as const;

  constructor(
    readonly provider: string,
    private readonly endpointUrl: string,
    private readonly client: OutboundClient,
    private readonly timeoutMs: number,
  ) {}

  send(m: CampaignMessage): Promise<ProviderResult> {
    const copy = COPY[m.campaignType];
    return postJson(
      this.client,
      this.endpointUrl,
      {
        channel: 'sms',
        to: m.to,
        body: `${copy.text} ${m.ctaUrl}`,
        tracking_id: m.trackingId,
        campaign_type: m.campaignType,
      },
      { idempotencyKey: m.trackingId, timeoutMs: this.timeoutMs },
    );
  }
}
