/** What one message says (the copy of its campaign type); the links are added by the composition. */
export interface MessageText {
  readonly subject: string;
  readonly text: string;
  readonly cta: string;
}

/** An email ready for the transport: headers, plain text and HTML. No address is in it. */
export interface ComposedEmail {
  readonly subject: string;
  readonly text: string;
  readonly html: string;
  /** Extra headers: the RFC 2369 / RFC 8058 unsubscribe pair and the tracking id. */
  readonly headers: Readonly<Record<string, string>>;
}

/** The value of `List-Unsubscribe-Post` that asks for one-click unsubscription (RFC 8058, section 3.1). */
export const ONE_CLICK_POST = 'List-Unsubscribe=One-Click';

/** The opt-out sentence every SMS ends with (carrier and CTIA conventions: say how to stop). */
export const SMS_OPT_OUT_TEXT = 'Reply STOP to opt out.';

/** The header that carries the send's tracking id (no personal data: the id is random). */
export const TRACKING_HEADER = 'X-Holdfast-Tracking-Id';

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * Composes a campaign email: the copy, the call-to-action link, an unsubscribe link in the body, and
 * the headers a mailbox provider needs for its own unsubscribe button: `List-Unsubscribe` with the
 * https URL (RFC 2369) and `List-Unsubscribe-Post: List-Unsubscribe=One-Click` (RFC 8058: a POST to
 * that URL unsubscribes without further interaction). No `mailto:` is offered: nothing reads an
 * unsubscribe mailbox, and RFC 8058 needs the https URL anyway.
 *
 * @example
 * composeEmail(copy, { ctaUrl, unsubscribeUrl: 'https://hf.example/unsubscribe/u1…', trackingId: 'hft_…' });
 * // headers: { 'List-Unsubscribe': '<https://hf.example/unsubscribe/u1…>', 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click', … }
 */
export function composeEmail(
  copy: MessageText,
  links: { readonly ctaUrl: string; readonly unsubscribeUrl: string; readonly trackingId: string },
): ComposedEmail {
  if (!links.unsubscribeUrl.startsWith('https://') && !links.unsubscribeUrl.startsWith('http://'))
    throw new Error('the unsubscribe URL must be an http(s) URL');
  const cta = escapeHtml(links.ctaUrl);
  const unsubscribe = escapeHtml(links.unsubscribeUrl);
  return {
    subject: copy.subject,
    text: [
      copy.text,
      '',
      `${copy.cta}: ${links.ctaUrl}`,
      '',
      `To stop receiving these emails, unsubscribe: ${links.unsubscribeUrl}`,
    ].join('\n'),
    html:
      `<p>${escapeHtml(copy.text)}</p>` +
      `<p><a href="${cta}">${escapeHtml(copy.cta)}</a></p>` +
      `<p style="font-size:12px">To stop receiving these emails, <a href="${unsubscribe}">unsubscribe</a>.</p>`,
    headers: {
      'List-Unsubscribe': `<${links.unsubscribeUrl}>`,
      'List-Unsubscribe-Post': ONE_CLICK_POST,
      [TRACKING_HEADER]: links.trackingId,
    },
  };
}

/**
 * Composes a campaign SMS: the copy, the call-to-action link, and the opt-out sentence last.
 *
 * @example
 * composeSms(copy, 'https://shop.example.com/?utm_…');
 * // 'It has been a while. See what is new in the shop. https://shop.example.com/?utm_… Reply STOP to opt out.'
 */
export function composeSms(copy: MessageText, ctaUrl: string): string {
  return `${copy.text} ${ctaUrl} ${SMS_OPT_OUT_TEXT}`;
}
