import { EmailAdapter } from './email-adapter.js';
import type { OutboundClient } from '@holdfast/platform';
import type { ProviderAdapter } from './provider-adapter.js';
import { SmsAdapter } from './sms-adapter.js';

export { EmailAdapter } from './email-adapter.js';
export { SmsAdapter } from './sms-adapter.js';
export type { CampaignMessage, ProviderAdapter, ProviderResult } from './provider-adapter.js';

/** A connected provider as control.providers stores it. */
export interface ConnectedProvider {
  readonly provider: string;
  readonly channel: 'email' | 'sms';
  readonly endpoint_url: string;
}

/** The adapter of a connected provider: by its channel; it posts through the guarded `client`. */
export function adapterFor(p: ConnectedProvider, client: OutboundClient, timeoutMs: number): ProviderAdapter {
  return p.channel === 'email'
    ? new EmailAdapter(p.provider, p.endpoint_url, client, timeoutMs)
    : new SmsAdapter(p.provider, p.endpoint_url, client, timeoutMs);
}
