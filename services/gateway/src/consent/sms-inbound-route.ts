import type { RequestHandler } from 'express';
import { loadProviderConnections } from '@holdfast/db';
import { smsKeyword } from '@holdfast/domain';
import { ForbiddenError, NotFoundError } from '@holdfast/platform';
import { readBody } from '../http/body-reader.js';
import { requestIdOf } from '../webhooks/webhooks-context.js';
import { appendConsentChanges, consentChange } from './consent-events.js';
import type { ConsentContext } from './consent-router.js';
import { verifyTwilioSignature } from './twilio-signature.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const EMPTY_TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response></Response>';

/**
 * POST /providers/sms/:account_id/inbound: the SMS provider's inbound-message webhook (Twilio's shape:
 * form-encoded `From`, `To`, `Body`, `MessageSid`; signed with `X-Twilio-Signature` under the account's
 * auth token, over the public URL it called: HOLDFAST_PUBLIC_URL + path). An opt-out keyword (STOP,
 * STOPALL, UNSUBSCRIBE, CANCEL, END, QUIT: `smsKeyword`) withdraws SMS consent of every customer of
 * the account with that phone, appended as CustomerEventReceived `sms_stop` (dedup key per MessageSid
 * and customer, so a provider's retry is applied once); the opt-out is then locked against plain
 * writes (`mergeConsent`). An opt-in keyword (START, YES, UNSTOP) lifts a STOP this service recorded:
 * `sms_start`, `sms: true`, for the customers with that phone whose SMS opt-out is locked (no one else
 * is opted in by a reply). Any other message records nothing. The answer
 * is empty TwiML (the provider sends its own STOP confirmation). 404: no such account or SMS provider;
 * 403: a missing or wrong signature.
 */
export function smsInboundRoute(ctx: ConsentContext): RequestHandler {
  return async (req, res) => {
    const accountId = String(req.params.account_id);
    const body = await readBody(req, 16 * 1024);
    if (!UUID.test(accountId)) throw new NotFoundError('No such SMS webhook');
    const sms = (await loadProviderConnections(ctx.db, accountId, ctx.keyring())).find(
      (p) => p.channel === 'sms' && p.kind === 'twilio',
    );
    if (!sms || sms.kind !== 'twilio') throw new NotFoundError('No such SMS webhook');
    const form = new URLSearchParams(body.toString('utf8'));
    const url = `${ctx.publicUrl ?? `${req.protocol}://${req.get('host')}`}${req.originalUrl}`;
    if (!verifyTwilioSignature(sms.secret, url, form.entries(), req.get('x-twilio-signature')))
      throw new ForbiddenError('Invalid request signature');
    const from = form.get('From') ?? '';
    const keyword = smsKeyword(form.get('Body') ?? '');
    if ((keyword === 'opt_out' || keyword === 'opt_in') && /^\+[1-9]\d{6,14}$/.test(from)) {
      const stop = keyword === 'opt_out';
      // A STOP from a customer whose STOP is already recorded appends nothing; a START only reverses one.
      const customers = (await ctx.consentReadSide.byPhone(accountId, from)).filter(
        (c) => c.consent_locked_sms !== stop,
      );
      const messageId = (form.get('MessageSid') ?? '').slice(0, 64) || crypto.randomUUID();
      const receivedAt = ctx.clock.now();
      const values = customers.map((customer) =>
        consentChange(ctx.events, {
          accountId,
          customer,
          eventType: stop ? 'sms_stop' : 'sms_start',
          dedupKey: `holdfast:${stop ? 'sms-stop' : 'sms-start'}:${messageId}:${customer.customer_id}`,
          requestId: requestIdOf(req.get('x-request-id')),
          receivedAt,
        }),
      );
      await appendConsentChanges(ctx.appender, ctx.events, values);
      ctx.logger.info(stop ? 'consent_withdrawn' : 'consent_restored', {
        account_id: accountId,
        channel: 'sms',
        customers: values.length,
        event_ids: values.map((v) => v.metadata.event_id),
      });
      const last = values.at(-1);
      if (last)
        await ctx.webhookReadSide.waitForCustomerEvent(accountId, last.dedup_key, ctx.projectionWaitMs);
    }
    res.status(200).type('text/xml').send(EMPTY_TWIML);
  };
}
