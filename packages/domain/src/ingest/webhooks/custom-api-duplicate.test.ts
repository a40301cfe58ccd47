import { describe, expect, it } from 'vitest';
import { DUPLICATE_DIFFERS_WARNING, customApiContentKey, duplicateWarning } from './custom-api-duplicate.js';
import { dedupKeyForCustomApi, parseCustomApiEvent, type CustomApiEvent } from './custom-api-event.js';

const parsed = (body: Record<string, unknown>): CustomApiEvent => {
  const r = parseCustomApiEvent(body);
  if (!r.ok) throw new Error(r.detail);
  return r.event;
};

describe('duplicateWarning (consent never vanishes)', () => {
  it('given sms: true applied, when sms: false arrives with the same event_type and external id, then it is the same dedup key and is warned about', () => {
    const first = parsed({ external_id: 'C7', event_type: 'consent', consent: { sms: true } });
    const second = parsed({ customer_id: 'C7', event_type: 'consent', consent: { sms: false } });
    expect(dedupKeyForCustomApi(second, {})).toBe(dedupKeyForCustomApi(first, {}));
    expect(duplicateWarning(customApiContentKey(first), customApiContentKey(second))).toBe(
      DUPLICATE_DIFFERS_WARNING,
    );
  });

  it('given an identical resend in another key order with an unused key, when compared, then there is no warning', () => {
    const first = parsed({
      external_id: 'C7',
      event_type: 'consent',
      consent: { sms: true, marketing_email: true },
    });
    const again = parsed({
      consent: { marketing_email: true, sms: true },
      event_type: 'consent',
      customer_id: 'C7',
      ignored: 1,
    });
    expect(duplicateWarning(customApiContentKey(first), customApiContentKey(again))).toBeNull();
  });

  it('given a first event stored before content keys were recorded, when a duplicate arrives, then it cannot be compared and gets no warning', () => {
    expect(duplicateWarning(null, customApiContentKey(parsed({ external_id: 'C7' })))).toBeNull();
  });

  it('names both safe ways to send a consent change', () => {
    expect(DUPLICATE_DIFFERS_WARNING).toContain('POST /ingest/customers');
    expect(DUPLICATE_DIFFERS_WARNING).toContain('distinct event_type');
  });
});
