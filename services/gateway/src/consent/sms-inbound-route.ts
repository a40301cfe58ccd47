import { randomBytes } from 'node:crypto';
import type { RequestHandler } from 'express';
import { loadSmsInboundToken, type SmsInboundToken } from '@holdfast/control-plane';
import { SecretUnreadableError } from '@holdfast/secrets';
import { smsKeyword } from '@holdfast/domain';
import { ForbiddenError } from '@holdfast/platform';
import { readBody } from '../http/body-reader.js';
import { rateLimitAddress } from '../limits/client-ip.js';
import { requestIdOf } from '../webhooks/webhooks-context.js';
import { appendConsentChanges, consentChange } from './consent-events.js';
import type { ConsentContext } from './consent-router.js';
import { verifyTwilioSignature } from './twilio-signature.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const EMPTY_TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response></Response>';

/** The one refusal: unknown account, no SMS provider, token not sealed yet, missing or bad signature. */
export const SMS_INBOUND_REFUSED = 'Invalid request signature';

/**
 * Checked against the signature when the account has no token, so an unknown account costs the same
 * HMAC as a known one and the timing says as little as the answer. Random per process: it signs
 * nothing anyone could produce.
 */
const DECOY_TOKEN = randomBytes(24).toString('hex');

/**
 * POST /providers/sms/:account_id/inbound: the SMS provider's inbound-message webhook (Twilio's shape:
 * form-encoded `From`, `To`, `Body`, `MessageSid`; signed with `X-Twilio-Signature` under the account's
 * auth token, over the public URL it called: HOLDFAST_PUBLIC_URL + path). An opt-out keyword (STOP,
 * STOPALL, UNSUBSCRIBE, CANCEL, END, QUIT: `smsKeyword`) withdraws SMS consent of every customer of
 * the account with that phone, appended as CustomerEventReceived `sms_stop` (dedup key per MessageSid
 * and customer, so a provider's retry is applied once); the opt-out is then locked against plain
 * writes (`mergeConsent`). An opt-in keyword (START, YES, UNSTOP) lifts a STOP this service recorded:
 * `sms_start`, `sms: true`, for the customers with that phone whose SMS opt-out is locked (no one else
 * is opted in by a reply). Any other message records nothing. The answer is empty TwiML (the provider
 * sends its own STOP confirmation).
 *
 * Unauthenticated, so: the token is the SMS provider's only, sealed under HOLDFAST_INBOUND_KEYS (the
 * gateway holds no master key); 600 requests per minute per account (`per-account`); and every
 * refusal (no such account, no SMS provider, a missing or wrong signature) is the same 403
 * `Invalid request signature` after the same work (one lookup, one HMAC), counted against the
 * client IP's failed-authentication budget (30 a minute, then 429 with Retry-After).
 */
export function smsInboundRoute(ctx: ConsentContext): RequestHandler {
  return async (req, res) => {
    const accountId = String(req.params.account_id);
    const body = await readBody(req, 16 * 1024);
    const known = UUID.test(accountId);
    const now = ctx.clock.now();
    await ctx.limiter.request(
      `sms-inbound:${known ? accountId.toLowerCase() : 'malformed'}`,
      now,
      res,
      'per-account',
    );
    const found = known ? await tokenOf(ctx, accountId) : ({ status: 'none' } as const);
    const form = new URLSearchParams(body.toString('utf8'));
    const url = `${ctx.publicUrl ?? `${req.protocol}://${req.get('host')}`}${req.originalUrl}`;
    const token = found.status === 'found' ? found.token : DECOY_TOKEN;
    const signed = verifyTwilioSignature(token, url, form.entries(), req.get('x-twilio-signature'));
    if (!signed || found.status !== 'found')
      throw (
        (await ctx.limiter.failedAuth(rateLimitAddress(req.ip), now, res)) ??
        new ForbiddenError(SMS_INBOUND_REFUSED)
      );
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

/**
 * The account's SMS token, opened with the inbound keys. A token the gateway cannot use (not sealed
 * for it yet, or sealed under an inbound key it lacks) is the operator's to fix: logged, and answered
 * like an unknown account.
 */
async function tokenOf(ctx: ConsentContext, accountId: string): Promise<SmsInboundToken> {
  let found: SmsInboundToken;
  try {
    found = await loadSmsInboundToken(ctx.db, accountId, ctx.inboundKeys);
  } catch (err) {
    if (!(err instanceof SecretUnreadableError)) throw err;
    ctx.logger.warn('sms_inbound_token_unreadable', { account_id: accountId, error: err.message });
    return { status: 'none' };
  }
  if (found.status === 'not_sealed')
    ctx.logger.warn('sms_inbound_token_not_sealed', {
      account_id: accountId,
      provider: found.provider,
      fix: 'holdfast secrets rewrap',
    });
  return found;
}
