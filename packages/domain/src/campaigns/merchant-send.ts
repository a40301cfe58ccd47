/**
 * Send claim and confirm (`POST /v1/sends`, docs/read-api.md "Send claim and confirm"): a merchant
 * that sends a campaign from its own stack claims a page of the audience export, gets a tracking id
 * and a call-to-action link per member, and confirms that it sent them. The rules, pure: the gateway
 * and the recompute call them, the tests call them directly.
 */
import { decideSend, type RecentSend, type SendChannel } from './decide-send.js';
import { isCampaignType, type CampaignType } from './campaign-types.js';
import type { ValidationIssue, Validated } from '../ingest/shared/validation-issue.js';

/** The `provider` of a ledger row the merchant sent (there is no provider of ours to name). */
export const MERCHANT_PROVIDER = 'merchant';

/** A claim not confirmed within this long lapses (docs/read-api.md: 24 h). */
export const CLAIM_TTL_MS = 24 * 3_600_000;

/** Members per claim page: at most the ingest's and the reads' 5,000 rows; 1,000 when not said. */
export const CLAIM_PAGE_MAX = 5_000;
export const CLAIM_PAGE_DEFAULT = 1_000;

/** A claim's `sent_at` may be at most this far ahead of the server's clock (clock skew). */
const SENT_AT_SKEW_MS = 5 * 60_000;

/** A validated `POST /v1/sends` body: a new claim (type and channel) or a further page of one. */
export interface ClaimRequest {
  readonly campaignType: CampaignType | null;
  readonly channel: SendChannel | null;
  readonly sendId: string | null;
  readonly cursor: string | null;
  readonly limit: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const CHANNELS: readonly SendChannel[] = ['email', 'sms'];
const CLAIM_FIELDS = new Set(['campaign_type', 'channel', 'send_id', 'cursor', 'limit']);

const issue = (field: string, type: string, msg: string, input?: unknown): ValidationIssue =>
  input === undefined || (typeof input === 'object' && input !== null)
    ? { type, loc: ['body', field], msg }
    : { type, loc: ['body', field], msg, input };

/**
 * Validates a claim body: `{campaign_type, channel, limit?}` opens a claim; `{send_id, cursor,
 * limit?}` adds the next page to it (campaign_type and channel, if given, must be the claim's: the
 * route checks that against the stored claim).
 *
 * @example
 * validateClaimRequest({ campaign_type: 'win_back', channel: 'email' });
 * // { ok: true, request: { campaignType: 'win_back', channel: 'email', sendId: null, cursor: null, limit: 1000 } }
 */
export function validateClaimRequest(body: unknown): Validated<{ request: ClaimRequest }> {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return {
      ok: false,
      detail: [{ type: 'model_attributes_type', loc: ['body'], msg: 'Input should be a valid dictionary' }],
    };
  const b = body as Record<string, unknown>;
  const detail: ValidationIssue[] = [];
  for (const k of Object.keys(b))
    if (!CLAIM_FIELDS.has(k)) detail.push(issue(k, 'extra_forbidden', 'Extra inputs are not permitted'));
  const str = (k: string): string | null => {
    const v = b[k];
    if (v === undefined || v === null) return null;
    if (typeof v !== 'string') {
      detail.push(issue(k, 'string_type', 'Input should be a valid string', v));
      return null;
    }
    return v;
  };
  const type = str('campaign_type');
  if (type !== null && !isCampaignType(type))
    detail.push(issue('campaign_type', 'enum', "Input should be 'win_back', 'replenishment' or 'vip'", type));
  const channel = str('channel');
  if (channel !== null && !(CHANNELS as readonly string[]).includes(channel))
    detail.push(issue('channel', 'enum', "Input should be 'email' or 'sms'", channel));
  const sendId = str('send_id');
  if (sendId !== null && !UUID.test(sendId))
    detail.push(issue('send_id', 'uuid_parsing', 'Input should be a valid UUID', sendId));
  const cursor = str('cursor');
  let limit = CLAIM_PAGE_DEFAULT;
  if (b.limit !== undefined && b.limit !== null) {
    if (typeof b.limit !== 'number' || !Number.isInteger(b.limit))
      detail.push(issue('limit', 'int_type', 'Input should be a valid integer', b.limit));
    else if (b.limit < 1 || b.limit > CLAIM_PAGE_MAX)
      detail.push({
        ...issue('limit', 'less_than_equal', `Input should be between 1 and ${CLAIM_PAGE_MAX}`, b.limit),
        ctx: { ge: 1, le: CLAIM_PAGE_MAX },
      });
    else limit = b.limit;
  }
  if (sendId === null) {
    // A new claim names what it claims.
    if (b.campaign_type === undefined || b.campaign_type === null)
      detail.push(issue('campaign_type', 'missing', 'Field required'));
    if (b.channel === undefined || b.channel === null)
      detail.push(issue('channel', 'missing', 'Field required'));
    if (cursor !== null)
      detail.push(
        issue('cursor', 'value_error', 'Value error, a cursor continues a claim: send its send_id'),
      );
  } else if (cursor === null)
    detail.push(issue('cursor', 'missing', 'Field required (a further page of a claim)'));
  if (detail.length) return { ok: false, detail };
  return {
    ok: true,
    request: {
      campaignType: type as CampaignType | null,
      channel: channel as SendChannel | null,
      sendId,
      cursor,
      limit,
    },
  };
}

/**
 * Validates a confirm body `{sent_at}`: an ISO 8601 time with an offset, at or after the claim and
 * not in the future (5 minutes' skew allowed).
 */
export function validateConfirmRequest(
  body: unknown,
  claimedAt: Date,
  now: Date,
): Validated<{ sentAt: Date }> {
  const b =
    typeof body === 'object' && body !== null && !Array.isArray(body)
      ? (body as Record<string, unknown>)
      : null;
  if (b === null)
    return {
      ok: false,
      detail: [{ type: 'model_attributes_type', loc: ['body'], msg: 'Input should be a valid dictionary' }],
    };
  const extra = Object.keys(b).filter((k) => k !== 'sent_at');
  if (extra.length)
    return {
      ok: false,
      detail: extra.map((k) => issue(k, 'extra_forbidden', 'Extra inputs are not permitted')),
    };
  const raw = b.sent_at;
  if (raw === undefined || raw === null)
    return { ok: false, detail: [issue('sent_at', 'missing', 'Field required')] };
  const withOffset = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;
  const t = typeof raw === 'string' && withOffset.test(raw) ? Date.parse(raw) : NaN;
  if (Number.isNaN(t))
    return {
      ok: false,
      detail: [issue('sent_at', 'datetime_parsing', 'Input should be an ISO 8601 time with an offset', raw)],
    };
  if (t < claimedAt.getTime() || t > now.getTime() + SENT_AT_SKEW_MS)
    return {
      ok: false,
      detail: [
        issue('sent_at', 'value_error', 'Value error, sent_at must lie between the claim and now', raw),
      ],
    };
  return { ok: true, sentAt: new Date(t) };
}

/** When a claim made at `claimedAt` lapses unless confirmed. */
export function claimExpiresAt(claimedAt: Date, ttlMs: number = CLAIM_TTL_MS): Date {
  return new Date(claimedAt.getTime() + ttlMs);
}

/** A claim as stored: when it was made, lapses, and was confirmed (null: not yet). */
export interface ClaimState {
  readonly expiresAt: Date;
  readonly confirmedAt: Date | null;
}

/** A claim's state now: `open` (may get pages and a confirm), `confirmed`, or `expired`. */
export function claimStatus(c: ClaimState, now: Date): 'open' | 'confirmed' | 'expired' {
  if (c.confirmedAt !== null) return 'confirmed';
  return now.getTime() < c.expiresAt.getTime() ? 'open' : 'expired';
}

/**
 * What a confirm does: an open claim is confirmed; a confirmed one answers the first confirm's
 * result again (idempotent, whatever `sent_at` the repeat says); an expired one is refused (409).
 *
 * @example
 * confirmOutcome({ expiresAt, confirmedAt: null }, now); // 'confirm' while now < expiresAt
 */
export function confirmOutcome(c: ClaimState, now: Date): 'confirm' | 'already_confirmed' | 'expired' {
  const s = claimStatus(c, now);
  return s === 'open' ? 'confirm' : s === 'confirmed' ? 'already_confirmed' : 'expired';
}

/** Whether a page may be added to a claim: only while it is open. */
export function claimTakesPages(c: ClaimState, now: Date): boolean {
  return claimStatus(c, now) === 'open';
}

/**
 * Whether the members of a claim not yet folded into the ledger count for the cool-down and the
 * frequency cap: an open claim does (so the nightly run does not contact them meanwhile, nor a second
 * claim hand them out), a confirmed one does (its ledger rows are on their way), an expired one not.
 */
export function claimCountsForCap(c: ClaimState, now: Date): boolean {
  return claimStatus(c, now) !== 'expired';
}

/** The customer as a claim sees them: the holdout flag and the contact state of the claim's channel. */
export interface ClaimCandidate {
  readonly isHoldout: boolean;
  readonly hasEmail: boolean;
  readonly emailConsent: boolean;
  readonly emailSuppressed: boolean;
  readonly hasPhone: boolean;
  readonly smsConsent: boolean;
}

/** The rules a claim applies beside the audience: the account's cap and the type's cool-down. */
export interface ClaimRules {
  readonly frequencyCap: { readonly messages: number; readonly days: number };
  readonly cooldownDays: number;
}

/** What a claim does with one audience member. */
export type ClaimDecision =
  | { readonly kind: 'member' }
  | { readonly kind: 'held_out' }
  | { readonly kind: 'left_out'; readonly reason: 'cooling_down' | 'no_consent' | 'suppressed' | 'capped' };

/**
 * One audience member of a claim, by `decideSend` itself (same order, same rules), with the claim's
 * channel as the only channel and the type counted as enabled (the operator's switch governs
 * Holdfast's own sends; a merchant claiming a type is its own decision):
 *
 * cool-down, then consent and reach on the claim's channel (Holdfast's consent record: a customer who
 * withdrew it, or whose address is suppressed or bounced, is not handed out), then the frequency cap,
 * then the holdout. The steps before the holdout apply to both arms, so the held-out members of a
 * confirmed claim are exactly those the merchant would have sent: its comparison group.
 *
 * @example
 * decideClaimMember({ isHoldout: true, hasEmail: true, emailConsent: true, ... }, 'win_back', 'email', rules, [], now);
 * // { kind: 'held_out' }
 */
export function decideClaimMember(
  customer: ClaimCandidate,
  type: CampaignType,
  channel: SendChannel,
  rules: ClaimRules,
  recent: readonly RecentSend[],
  now: Date,
): ClaimDecision {
  const d = decideSend(
    customer,
    { type },
    {
      enabledTypes: new Set([type]),
      frequencyCap: rules.frequencyCap,
      cooldownDays: rules.cooldownDays,
      channels: new Set([channel]),
      sandbox: false,
    },
    recent,
    now,
  );
  switch (d.kind) {
    case 'send':
    case 'sandbox_simulated':
      return { kind: 'member' };
    case 'held_out':
      return { kind: 'held_out' };
    case 'cooling_down':
    case 'no_consent':
    case 'suppressed':
    case 'capped':
      return { kind: 'left_out', reason: d.kind };
    case 'disabled':
      // Unreachable: the type is enabled above. Left out, never handed out, if it ever were.
      return { kind: 'left_out', reason: 'no_consent' };
  }
}
