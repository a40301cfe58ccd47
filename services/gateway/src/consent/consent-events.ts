import type { CustomerEventReceived } from '@holdfast/contracts';
import type { Appender } from '@holdfast/kafka';
import type { Clock } from '../clock.js';
import type { EventFactory } from '../ingest/event-factory.js';
import type { ConsentSubject } from './consent-read-side.js';

/**
 * The event types of the consent changes the service records itself (read_models.customer_events):
 * withdrawals (an unsubscribe, a STOP reply), which lock the opt-out against plain writes, and an SMS
 * START reply, which lifts a STOP (`mergeConsent` in @holdfast/domain).
 */
export type ConsentEventType = 'unsubscribe' | 'sms_stop' | 'sms_start';

/**
 * The record of a consent change the service saw itself (a withdrawal, or an SMS START): a CustomerEventReceived on holdfast.commerce, the record the
 * projector already folds for custom-api consent events, so a replay folds it again in log order. It
 * carries the customer's own identity keys as stored (external id, email, phone: resolution then finds
 * that customer and the merge changes nothing else) and only the withdrawn consent key, as the spec
 * says a client sends these changes: an email unsubscribe is `suppressed: true` (so a client re-posting
 * `marketing_email: true` from its own stale list does not re-subscribe the customer), a STOP is
 * `sms: false`, a START `sms: true`; the other keys are null (omitted: kept). The dedup key is namespaced (`holdfast:`) so no custom-api key can collide.
 */
export function consentChange(
  events: EventFactory,
  o: {
    readonly accountId: string;
    readonly customer: ConsentSubject;
    readonly eventType: ConsentEventType;
    readonly dedupKey: string;
    readonly requestId: string | null;
    readonly receivedAt: Date;
  },
): CustomerEventReceived {
  const metadata = events.webhookMetadata({
    accountId: o.accountId,
    requestId: o.requestId,
    keyId: null,
    receivedAt: o.receivedAt,
  });
  const c = o.customer;
  return {
    metadata,
    dedup_key: o.dedupKey,
    event: {
      external_id: c.external_id,
      email: c.email,
      phone: c.phone,
      name: null,
      address: null,
      consent: {
        marketing_email: null,
        sms: o.eventType === 'sms_stop' ? false : o.eventType === 'sms_start' ? true : null,
        suppressed: o.eventType === 'unsubscribe' ? true : null,
        bounced: null,
      },
      event_type: o.eventType,
      source_label: null,
    },
    personal: null,
  };
}

/** Appends the consent changes, their personal fields encrypted, in one transaction (all or none). */
export async function appendConsentChanges(
  appender: Appender,
  events: EventFactory,
  values: readonly CustomerEventReceived[],
): Promise<void> {
  if (!values.length) return;
  const byAccount = Map.groupBy(values, (v) => v.metadata.account_id);
  const records = [];
  for (const [accountId, list] of byAccount)
    records.push(...(await events.commerceRecords(accountId, 'CustomerEventReceived', list)));
  await appender.append(records);
}

export type { Clock };
