// The webhooks page's create form (parseWebhookForm), given/when/then: the API's URL policy and
// event types, answered in words.
import { describe, expect, it } from 'vitest';
import { STRICT_OUTBOUND_POLICY } from '@holdfast/platform';
import { parseWebhookForm } from '../../services/console/src/webhook-form.js';

describe('the webhook create form', () => {
  it('given a public https URL and two event types, when read, then they are kept in the canonical order', () => {
    expect(
      parseWebhookForm(
        { url: ' https://shop.example/hooks ', eventTypes: ['sync.completed', 'campaign.sent'] },
        STRICT_OUTBOUND_POLICY,
      ),
    ).toEqual({
      ok: true,
      url: 'https://shop.example/hooks',
      eventTypes: ['campaign.sent', 'sync.completed'],
    });
  });

  it('given plain http, a private address or credentials in the URL, when read, then refused with the reason', () => {
    for (const url of ['http://shop.example/h', 'https://127.0.0.1/h', 'https://u:p@shop.example/h']) {
      const r = parseWebhookForm({ url, eventTypes: ['campaign.sent'] }, STRICT_OUTBOUND_POLICY);
      expect(r.ok, url).toBe(false);
      expect(!r.ok && r.problems[0], url).toMatch(/^That URL is refused: .+ public https URLs only\.$/);
    }
  });

  it('given no URL and no event type, when read, then both problems are named at once', () => {
    expect(parseWebhookForm({ url: '', eventTypes: [] }, STRICT_OUTBOUND_POLICY)).toEqual({
      ok: false,
      problems: ['Enter the URL Holdfast should send the events to.', 'Choose at least one event type.'],
    });
  });

  it('given an unknown event type or a URL over 2048 characters, when read, then refused', () => {
    expect(
      parseWebhookForm(
        { url: 'https://shop.example/h', eventTypes: ['order.placed'] },
        STRICT_OUTBOUND_POLICY,
      ),
    ).toEqual({ ok: false, problems: ['Choose at least one event type.'] });
    const long = `https://shop.example/${'a'.repeat(2048)}`;
    expect(parseWebhookForm({ url: long, eventTypes: ['campaign.sent'] }, STRICT_OUTBOUND_POLICY)).toEqual({
      ok: false,
      problems: ['The URL is longer than 2048 characters.'],
    });
  });
});
