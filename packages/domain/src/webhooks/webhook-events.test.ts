import { describe, expect, it } from 'vitest';
import { isWebhookEventType, subscriptionEventTypes } from './webhook-events.js';

describe('subscriptionEventTypes', () => {
  it('given no choice, when resolved, then campaign.sent only (as before subscriptions chose)', () => {
    expect(subscriptionEventTypes(undefined)).toEqual(['campaign.sent']);
  });
  it('given types in any order with repeats, when resolved, then each once in the canonical order', () => {
    expect(subscriptionEventTypes(['sync.completed', 'campaign.sent', 'sync.completed'])).toEqual([
      'campaign.sent',
      'sync.completed',
    ]);
  });
  it('given an empty list or an unknown type, when resolved, then null (a 422)', () => {
    expect(subscriptionEventTypes([])).toBeNull();
    expect(subscriptionEventTypes(['campaign.sent', 'order.created'])).toBeNull();
    expect(subscriptionEventTypes([1])).toBeNull();
  });
  it('knows the five event types', () => {
    expect(isWebhookEventType('lift.proven')).toBe(true);
    expect(isWebhookEventType('LIFT.PROVEN')).toBe(false);
  });
});
