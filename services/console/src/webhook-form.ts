// The webhooks page's create form, as one pure rule: the same checks as POST /v1/webhooks (the
// outbound URL policy of @holdfast/platform, the event types of @holdfast/domain), answered in words.
import { subscriptionEventTypes, type WebhookEventType } from '@holdfast/domain';
import { checkOutboundUrl, type OutboundPolicy } from '@holdfast/platform';

/** As the API's limit: no receiver needs a longer URL, and every row and log stays small. */
export const MAX_WEBHOOK_URL_LENGTH = 2048;

/** A subscription to create, or what is wrong with the form (one sentence per problem). */
export type WebhookFormResult =
  | { readonly ok: true; readonly url: string; readonly eventTypes: WebhookEventType[] }
  | { readonly ok: false; readonly problems: string[] };

/**
 * Reads the create form: `url` (a destination the dispatcher would deliver to under `policy`: public
 * https unless the deployment opens local receivers) and the ticked `event_types` (at least one of
 * the five). Every problem is named at once, so the form is corrected in one go.
 *
 * @example
 * parseWebhookForm({ url: 'https://shop.example/h', eventTypes: ['customer.churned'] }, policy);
 * // { ok: true, url: 'https://shop.example/h', eventTypes: ['customer.churned'] }
 */
export function parseWebhookForm(
  form: { readonly url: string; readonly eventTypes: readonly string[] },
  policy: OutboundPolicy,
): WebhookFormResult {
  const problems: string[] = [];
  const url = form.url.trim();
  if (!url) problems.push('Enter the URL Holdfast should send the events to.');
  else if (url.length > MAX_WEBHOOK_URL_LENGTH)
    problems.push(`The URL is longer than ${MAX_WEBHOOK_URL_LENGTH} characters.`);
  else {
    const refused = checkOutboundUrl(url, policy);
    if (refused) problems.push(`That URL is refused: ${refused}. Deliveries go to public https URLs only.`);
  }
  const eventTypes = form.eventTypes.length ? subscriptionEventTypes(form.eventTypes) : null;
  if (!eventTypes) problems.push('Choose at least one event type.');
  return problems.length ? { ok: false, problems } : { ok: true, url, eventTypes: eventTypes! };
}
