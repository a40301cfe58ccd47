import { EmailAdapter } from './email-adapter.js';
import type { FetchLike, ProviderAdapter } from './provider-adapter.js';
import { SmsAdapter } from './sms-adapter.js';

export { EmailAdapter } from './email-adapter.js';
export { SmsAdapter } from './sms-adapter.js';
export type { CampaignMessage, FetchLike, ProviderAdapter, ProviderResult } from './provider-adapter.js';

/** A connected provider as control.providers stores it. */
export interface ConnectedProvider {
  readonly provider: string;
  readonly channel: 'email' | 'sms';
  readonly endpoint_url: string;
}

/** The adapter of a connected provider: by its channel. */
export function adapterFor(p: ConnectedProvider, fetchFn: FetchLike, timeoutMs: number): ProviderAdapter {
  return p.channel === 'email'
    ? new EmailAdapter(p.provider, p.endpoint_url, fetchFn, timeoutMs)
    : new SmsAdapter(p.provider, p.endpoint_url, fetchFn, timeoutMs);
}
