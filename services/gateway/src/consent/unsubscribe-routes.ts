import type { RequestHandler } from 'express';
import { verifyUnsubscribeToken, type UnsubscribeKeys } from '@holdfast/secrets';
import { readBody } from '../http/body-reader.js';
import { requestIdOf } from '../webhooks/webhooks-context.js';
import { appendConsentChanges, consentChange } from './consent-events.js';
import type { ConsentContext } from './consent-router.js';

const page = (title: string, body: string): string =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="robots" content="noindex">` +
  `<meta name="viewport" content="width=device-width,initial-scale=1"><title>${title}</title></head>` +
  `<body style="font-family:sans-serif;max-width:32rem;margin:3rem auto">${body}</body></html>`;

const INVALID = page('Link not valid', '<h1>This unsubscribe link is not valid</h1>');

function send(res: Parameters<RequestHandler>[1], status: number, html: string): void {
  res
    .status(status)
    .set({
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
      'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'",
    })
    .send(html);
}

/**
 * GET /unsubscribe/:token: a confirmation page with one button. A GET never unsubscribes: mail
 * scanners and link previews fetch every link of a message (RFC 8058, section 3.2: only the POST acts).
 * An invalid or forged token: 404, the same page whatever was wrong (nothing to enumerate).
 */
export function unsubscribePage(keys: UnsubscribeKeys): RequestHandler {
  return (req, res) => {
    const token = String(req.params.token);
    if (!verifyUnsubscribeToken(keys, token)) return send(res, 404, INVALID);
    send(
      res,
      200,
      page(
        'Unsubscribe',
        `<h1>Unsubscribe from these emails?</h1>` +
          `<form method="post"><input type="hidden" name="List-Unsubscribe" value="One-Click">` +
          `<button type="submit">Unsubscribe</button></form>`,
      ),
    );
  };
}

/**
 * POST /unsubscribe/:token: the RFC 8058 one-click unsubscribe (a mailbox provider POSTs
 * `List-Unsubscribe=One-Click`) and the confirmation page's button. The token names account, customer
 * and channel; the withdrawal (`suppressed: true`, the spec's unsubscribe) is appended to the log as a
 * CustomerEventReceived `unsubscribe`, then awaited (bounded) until the projector applied it, so the
 * next send reads it. Idempotent: a customer whose unsubscribe this service already recorded
 * (`consent_locked_email`) appends nothing. 200 either way
 * for a valid token (a one-click client only looks at the status); 404 for an invalid one.
 */
export function unsubscribeAction(ctx: ConsentContext): RequestHandler {
  return async (req, res) => {
    // The body (`List-Unsubscribe=One-Click`) is read and bounded but not needed: the token says all.
    await readBody(req, 4096);
    const subject = verifyUnsubscribeToken(ctx.unsubscribeKeys, String(req.params.token));
    if (!subject) return send(res, 404, INVALID);
    const customer = await ctx.consentReadSide.byId(subject.accountId, subject.customerId);
    const done = page(
      'Unsubscribed',
      '<h1>You are unsubscribed</h1><p>You will get no more of these emails.</p>',
    );
    // Already recorded by this service (locked): nothing to append. A suppression a client posted is
    // recorded again, so that it is this service's, and sticks (mergeConsent).
    if (!customer || customer.consent_locked_email) return send(res, 200, done);
    const value = consentChange(ctx.events, {
      accountId: subject.accountId,
      customer,
      eventType: 'unsubscribe',
      dedupKey: `holdfast:unsubscribe:${crypto.randomUUID()}`,
      requestId: requestIdOf(req.get('x-request-id')),
      receivedAt: ctx.clock.now(),
    });
    await appendConsentChanges(ctx.appender, ctx.events, [value]);
    ctx.logger.info('consent_withdrawn', {
      account_id: subject.accountId,
      customer_id: subject.customerId,
      channel: 'email',
      event_id: value.metadata.event_id,
    });
    await ctx.webhookReadSide.waitForCustomerEvent(subject.accountId, value.dedup_key, ctx.projectionWaitMs);
    send(res, 200, done);
  };
}
