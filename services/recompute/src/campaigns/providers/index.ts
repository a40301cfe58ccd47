import type { ProviderConnection } from '@holdfast/control-plane';
import type { OutboundClient, OutboundPolicy } from '@holdfast/platform';
import { JsonAdapter } from './json-adapter.js';
import type { ProviderAdapter } from './provider-adapter.js';
import { SmtpAdapter } from './smtp-adapter.js';
import { TwilioAdapter } from './twilio-adapter.js';

export { JsonAdapter } from './json-adapter.js';
export { SmtpAdapter } from './smtp-adapter.js';
export { TwilioAdapter } from './twilio-adapter.js';
export type { CampaignMessage, ProviderAdapter } from './provider-adapter.js';

/** What every adapter is built with: the guarded client, its policy (SMTP), limits, test mode. */
export interface AdapterEnv {
  readonly client: OutboundClient;
  readonly policy: OutboundPolicy;
  readonly timeoutMs: number;
  /** HOLDFAST_TEST_MODE: allows an SMTP provider with `tls: 'none'` (never in production). */
  readonly testMode: boolean;
}

/** The adapter of a connected provider, by its kind. */
export function adapterFor(p: ProviderConnection, env: AdapterEnv): ProviderAdapter {
  switch (p.kind) {
    case 'smtp':
      return new SmtpAdapter(p.provider, p.settings, p.secret, {
        policy: env.policy,
        testMode: env.testMode,
        timeoutMs: env.timeoutMs,
      });
    case 'twilio':
      return new TwilioAdapter(p.provider, p.settings, p.secret, env.client, env.timeoutMs);
    case 'json':
      return new JsonAdapter(p.provider, p.channel, p.endpointUrl, env.client, env.timeoutMs);
    default: {
      const never: never = p;
      return never;
    }
  }
}
