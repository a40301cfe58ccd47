import type { OutboundClient } from '@holdfast/platform';
import { COPY } from '../campaign-types.js';
import {
  postJson,
  type CampaignMessage,
  type ProviderAdapter,
  type ProviderResult,
} from './provider-adapter.js';

/**
 * An email provider reached over JSON: POST endpoint_url with
 * `{channel:'email', to, subject, text, html, tracking_id, campaign_type}`. The one link in the
 * message is the call-to-action URL (storefront + utm parameters).
 */
export class EmailAdapter implements ProviderAdapter {
  readonly channel = 'email' as const;

  constructor(
    readonly provider: string,
    private readonly endpointUrl: string,
    private readonly client: OutboundClient,
    private readonly timeoutMs: number,
  ) {}

  send(m: CampaignMessage): Promise<ProviderResult> {
    const copy = COPY[m.campaignType];
    const link = escapeHtml(m.ctaUrl);
    return postJson(
      this.client,
      this.endpointUrl,
      {
        channel: 'email',
        to: m.to,
        subject: copy.subject,
        text: `${copy.text}\n\n${copy.cta}: ${m.ctaUrl}`,
        html: `<p>${escapeHtml(copy.text)}</p><p><a href="${link}">${escapeHtml(copy.cta)}</a></p>`,
        tracking_id: m.trackingId,
        campaign_type: m.campaignType,
      },
      { idempotencyKey: m.trackingId, timeoutMs: this.timeoutMs },
    );
  }
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
