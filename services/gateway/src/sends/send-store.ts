import { randomBytes, randomUUID } from 'node:crypto';
import type pg from 'pg';
import { AUDIENCE_TYPING_CTES, DEFAULT_AUDIENCE_RULES } from '@holdfast/campaign-store';
import { normalizeStorefrontDomain } from '@holdfast/control-plane';
import { rawQuery, withTransaction, type Pool } from '@holdfast/postgres';
import {
  DEFAULT_FREQUENCY_CAP,
  claimCountsForCap,
  claimExpiresAt,
  claimTakesPages,
  confirmOutcome,
  countsForCap,
  decideClaimMember,
  utmLink,
  validateConfirmRequest,
  type CampaignType,
  type ClaimRequest,
  type RecentSend,
  type SendChannel,
} from '@holdfast/domain';
import { HttpError, NotFoundError } from '@holdfast/platform';
import { ValidationFailedError } from '../http/validation-failed.js';
import { decodeCursor, encodeCursor } from '../read-api/cursor.js';

export const SEND_DETAIL = Object.freeze({
  noClaim: 'Send claim not found.',
  expired: 'This send claim has expired: it was not confirmed in time. Claim again.',
  confirmed: 'This send claim is confirmed: it takes no more pages. Open a new claim.',
  noStorefront:
    'The account has no storefront domain, so no call-to-action link can be built. Set it first (holdfast accounts set-storefront).',
  otherClaim: 'campaign_type and channel of a further page must be those of the claim.',
});

/** Why a member of the audience page was not handed out (besides the holdout). */
export type LeftOutReason = 'cooling_down' | 'no_consent' | 'suppressed' | 'capped';

/** One page of a claim, as POST /v1/sends answers it. */
export interface ClaimPage {
  readonly send_id: string;
  readonly campaign_type: CampaignType;
  readonly channel: SendChannel;
  readonly claimed_at: string;
  readonly expires_at: string;
  readonly next_cursor: string | null;
  readonly held_out: number;
  readonly left_out: Record<LeftOutReason, number>;
  readonly members: {
    external_id: string | null;
    customer_id: string;
    tracking_id: string;
    cta_url: string;
  }[];
}

/** A confirmed claim, as POST /v1/sends/{send_id}/confirm answers it. */
export interface ConfirmedClaim {
  readonly send_id: string;
  readonly campaign_type: CampaignType;
  readonly channel: SendChannel;
  readonly status: 'confirmed';
  readonly claimed_at: string;
  readonly confirmed_at: string;
  readonly sent_at: string;
  readonly members: number;
  readonly held_out: number;
}

interface ClaimRow {
  send_id: string;
  campaign_type: CampaignType;
  channel: SendChannel;
  claimed_at: Date;
  expires_at: Date;
  confirmed_at: Date | null;
  sent_at: Date | null;
}

interface CandidateRow {
  customer_id: string;
  external_id: string | null;
  is_holdout: boolean;
  has_email: boolean;
  email_consent: boolean;
  email_suppressed: boolean;
  has_phone: boolean;
  sms_consent: boolean;
  recent: { type: string; at: string; status: string }[] | null;
  claims: { type: string; at: string; expires_at: string; confirmed_at: string | null }[] | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The claims of one account serialise on this lock: two claims cannot both pass the cap. */
const lockAccount = (c: pg.PoolClient, accountId: string) =>
  rawQuery(c, 'sends.lock', `select pg_advisory_xact_lock(hashtextextended('send-claims:' || $1, 0))`, [
    accountId,
  ]);

/**
 * The send claims' statements (docs/read-api.md, "Send claim and confirm"). Every statement filters
 * on the key's account: another account's send id is not found.
 */
export class SendStore {
  private readonly rm: string;

  constructor(
    private readonly pool: Pool,
    readModelSchema: string,
  ) {
    this.rm = `"${readModelSchema.replace(/"/g, '""')}"`;
  }

  /**
   * One page of a claim, in one transaction under the account's claim lock: the repeat of an
   * Idempotency-Key answers its page again; else the audience page after the cursor is read with
   * each customer's contact state, recent ledger decisions and unfolded claims, each member decided
   * by `decideClaimMember`, and the page written (a new claim's row first).
   */
  async claim(
    accountId: string,
    keyId: string | null,
    idemKey: string,
    req: ClaimRequest,
    now: Date,
  ): Promise<ClaimPage> {
    return withTransaction(this.pool, async (c) => {
      await lockAccount(c, accountId);
      const replay = await this.replay(c, accountId, idemKey);
      if (replay) return replay;
      let claim: ClaimRow;
      let after: string | null = null;
      const storefront = await this.storefront(c, accountId);
      if (req.sendId !== null) {
        // Row-locked like the confirm: a page and a confirm of one claim never interleave (a page
        // committed after the confirm would add members the confirm did not count).
        const found = await this.findClaim(c, accountId, req.sendId, true);
        if (!found) throw new NotFoundError(SEND_DETAIL.noClaim);
        if (!claimTakesPages({ expiresAt: found.expires_at, confirmedAt: found.confirmed_at }, now))
          throw new HttpError(409, found.confirmed_at ? SEND_DETAIL.confirmed : SEND_DETAIL.expired);
        if (
          (req.campaignType !== null && req.campaignType !== found.campaign_type) ||
          (req.channel !== null && req.channel !== found.channel)
        )
          throw new ValidationFailedError([
            {
              type: 'value_error',
              loc: ['body', 'campaign_type'],
              msg: `Value error, ${SEND_DETAIL.otherClaim}`,
            },
          ]);
        claim = found;
        after = claimCursor(req.cursor);
      } else {
        if (storefront === null) throw new HttpError(409, SEND_DETAIL.noStorefront);
        claim = {
          send_id: randomUUID(),
          campaign_type: req.campaignType!,
          channel: req.channel!,
          claimed_at: now,
          expires_at: claimExpiresAt(now),
          confirmed_at: null,
          sent_at: null,
        };
        await rawQuery(
          c,
          'sends.insert-claim',
          `insert into control.send_claims (send_id, account_id, campaign_type, channel, key_id, claimed_at, expires_at)
           values ($1, $2, $3, $4, $5, $6, $7)`,
          [
            claim.send_id,
            accountId,
            claim.campaign_type,
            claim.channel,
            keyId,
            claim.claimed_at,
            claim.expires_at,
          ],
        );
      }
      if (storefront === null) throw new HttpError(409, SEND_DETAIL.noStorefront);
      const page = await this.decidePage(c, accountId, claim, after, req.limit, storefront, now);
      await rawQuery(
        c,
        'sends.insert-page',
        `insert into control.send_claim_pages (account_id, idempotency_key, send_id, next_after, held_out, left_out, created_at)
         values ($1, $2, $3, $4, $5, $6, $7)`,
        [
          accountId,
          idemKey,
          claim.send_id,
          page.nextAfter,
          page.heldOut.length,
          JSON.stringify(page.leftOut),
          now,
        ],
      );
      const m = [
        ...page.members.map((x) => ({ ...x, holdout: false })),
        ...page.heldOut.map((id) => ({ customer_id: id, tracking_id: null, cta_url: null, holdout: true })),
      ];
      if (m.length)
        await rawQuery(
          c,
          'sends.insert-members',
          `insert into control.send_claim_members (member_id, send_id, account_id, idempotency_key, customer_id, holdout, tracking_id, cta_url)
           select gen_random_uuid(), $1, $2, $3, u.customer_id, u.holdout, u.tracking_id, u.cta_url
             from unnest($4::uuid[], $5::boolean[], $6::text[], $7::text[]) as u(customer_id, holdout, tracking_id, cta_url)`,
          [
            claim.send_id,
            accountId,
            idemKey,
            m.map((x) => x.customer_id),
            m.map((x) => x.holdout),
            m.map((x) => x.tracking_id),
            m.map((x) => x.cta_url),
          ],
        );
      return {
        ...claimHead(claim),
        next_cursor: page.nextAfter === null ? null : encodeCursor(page.nextAfter),
        held_out: page.heldOut.length,
        left_out: page.leftOut,
        members: page.members,
      };
    });
  }

  /**
   * Confirms a claim: `confirmOutcome` decides (open: confirm with the body's `sent_at`; confirmed:
   * the first confirm's answer again; expired: 409). Another account's or an unknown id: 404.
   */
  async confirm(accountId: string, sendId: string, body: unknown, now: Date): Promise<ConfirmedClaim> {
    return withTransaction(this.pool, async (c) => {
      const claim = await this.findClaim(c, accountId, sendId, true);
      if (!claim) throw new NotFoundError(SEND_DETAIL.noClaim);
      const outcome = confirmOutcome({ expiresAt: claim.expires_at, confirmedAt: claim.confirmed_at }, now);
      if (outcome === 'expired') throw new HttpError(409, SEND_DETAIL.expired);
      if (outcome === 'confirm') {
        const v = validateConfirmRequest(body, claim.claimed_at, now);
        if (!v.ok) throw new ValidationFailedError(v.detail);
        await rawQuery(
          c,
          'sends.confirm',
          `update control.send_claims set confirmed_at = $3, sent_at = $4 where account_id = $1 and send_id = $2`,
          [accountId, sendId, now, v.sentAt],
        );
        claim.confirmed_at = now;
        claim.sent_at = v.sentAt;
      }
      const { rows } = await rawQuery<{ members: number; held_out: number }>(
        c,
        'sends.count-members',
        `select count(*) filter (where not holdout)::int as members, count(*) filter (where holdout)::int as held_out
           from control.send_claim_members where account_id = $1 and send_id = $2`,
        [accountId, sendId],
      );
      return {
        send_id: claim.send_id,
        campaign_type: claim.campaign_type,
        channel: claim.channel,
        status: 'confirmed',
        claimed_at: claim.claimed_at.toISOString(),
        confirmed_at: claim.confirmed_at!.toISOString(),
        sent_at: claim.sent_at!.toISOString(),
        members: rows[0]!.members,
        held_out: rows[0]!.held_out,
      };
    });
  }

  private async findClaim(
    c: pg.PoolClient,
    accountId: string,
    sendId: string,
    lock: boolean,
  ): Promise<ClaimRow | null> {
    if (!UUID.test(sendId)) return null;
    const { rows } = await rawQuery<ClaimRow>(
      c,
      'sends.find-claim',
      `select send_id, campaign_type, channel, claimed_at, expires_at, confirmed_at, sent_at
         from control.send_claims where account_id = $1 and send_id = $2${lock ? ' for update' : ''}`,
      [accountId, sendId],
    );
    return rows[0] ?? null;
  }

  private async storefront(c: pg.PoolClient, accountId: string): Promise<string | null> {
    const { rows } = await rawQuery<{ storefront_domain: string | null }>(
      c,
      'sends.storefront',
      `select storefront_domain from control.accounts where id = $1`,
      [accountId],
    );
    const d = rows[0]?.storefront_domain;
    return d ? normalizeStorefrontDomain(d) : null;
  }

  /** The page an Idempotency-Key already claimed, answered again (its members as stored). */
  private async replay(c: pg.PoolClient, accountId: string, idemKey: string): Promise<ClaimPage | null> {
    const { rows } = await rawQuery<
      ClaimRow & { next_after: string | null; held_out: number; left_out: Record<LeftOutReason, number> }
    >(
      c,
      'sends.replay-page',
      `select s.send_id, s.campaign_type, s.channel, s.claimed_at, s.expires_at, s.confirmed_at, s.sent_at,
              p.next_after, p.held_out, p.left_out
         from control.send_claim_pages p join control.send_claims s on s.send_id = p.send_id
        where p.account_id = $1 and p.idempotency_key = $2`,
      [accountId, idemKey],
    );
    const p = rows[0];
    if (!p) return null;
    const members = await rawQuery<{
      external_id: string | null;
      customer_id: string;
      tracking_id: string;
      cta_url: string;
    }>(
      c,
      'sends.replay-members',
      `select c.external_id, m.customer_id, m.tracking_id, m.cta_url
         from control.send_claim_members m
         left join ${this.rm}.customers c on c.account_id = m.account_id and c.customer_id = m.customer_id
        where m.account_id = $1 and m.idempotency_key = $2 and not m.holdout
        order by m.customer_id`,
      [accountId, idemKey],
    );
    return {
      ...claimHead(p),
      next_cursor: p.next_after === null ? null : encodeCursor(p.next_after),
      held_out: p.held_out,
      left_out: p.left_out,
      members: members.rows,
    };
  }

  /** The audience page after `after`, each customer decided by `decideClaimMember`. */
  private async decidePage(
    c: pg.PoolClient,
    accountId: string,
    claim: ClaimRow,
    after: string | null,
    limit: number,
    storefront: string,
    now: Date,
  ) {
    const rules = DEFAULT_AUDIENCE_RULES;
    const { rows: capRows } = await rawQuery<{ frequency_cap_messages: number; frequency_cap_days: number }>(
      c,
      'sends.cap',
      `select frequency_cap_messages, frequency_cap_days from analytics.campaign_account_settings where account_id = $1`,
      [accountId],
    );
    const frequencyCap = capRows[0]
      ? { messages: capRows[0].frequency_cap_messages, days: capRows[0].frequency_cap_days }
      : DEFAULT_FREQUENCY_CAP;
    const windowDays = Math.max(rules.cooldownDays, frequencyCap.days);
    // The audience typing rule the recompute plans with (holdout included: they are decided too),
    // the customer's contact state, and the history the cap and the cool-down count.
    const { rows } = await rawQuery<CandidateRow>(
      c,
      'sends.candidates',
      `with ${AUDIENCE_TYPING_CTES}
       select t.customer_id, t.external_id, t.is_holdout,
              c.email is not null as has_email, coalesce(c.consent_marketing_email, false) as email_consent,
              (coalesce(c.consent_suppressed, false) or coalesce(c.consent_bounced, false)) as email_suppressed,
              c.phone is not null as has_phone, coalesce(c.consent_sms, false) as sms_consent,
              (select json_agg(json_build_object('type', a.campaign_type, 'at', a.assigned_at, 'status', a.status))
                 from analytics.campaign_assignments a
                where a.account_id = $1 and a.customer_id = t.customer_id and a.status <> 'failed'
                  and a.assigned_at > $7::timestamptz - make_interval(days => $8)) as recent,
              (select json_agg(json_build_object('type', sc.campaign_type, 'at', sc.claimed_at,
                                                 'expires_at', sc.expires_at, 'confirmed_at', sc.confirmed_at))
                 from control.send_claim_members m join control.send_claims sc on sc.send_id = m.send_id
                where m.account_id = $1 and m.customer_id = t.customer_id and sc.folded_at is null
                  and sc.claimed_at > $7::timestamptz - make_interval(days => $8)) as claims
         from typed t
         join ${this.rm}.customers c on c.account_id = $1 and c.customer_id = t.customer_id
        where t.campaign_type = $4 and ($5::uuid is null or t.customer_id > $5::uuid)
        order by t.customer_id
        limit $6`,
      [
        accountId,
        rules.replenishmentWindowDays,
        rules.vipShare,
        claim.campaign_type,
        after,
        limit + 1,
        now,
        windowDays,
      ],
    );
    const more = rows.length > limit;
    const pageRows = more ? rows.slice(0, limit) : rows;
    const members: ClaimPage['members'] = [];
    const heldOut: string[] = [];
    const leftOut: Record<LeftOutReason, number> = {
      cooling_down: 0,
      no_consent: 0,
      suppressed: 0,
      capped: 0,
    };
    for (const r of pageRows) {
      const recent: RecentSend[] = [
        ...(r.recent ?? [])
          .filter((h) => countsForCap(h.status))
          .map((h) => ({ campaignType: h.type, at: new Date(h.at) })),
        ...(r.claims ?? [])
          .filter((k) =>
            claimCountsForCap(
              {
                expiresAt: new Date(k.expires_at),
                confirmedAt: k.confirmed_at ? new Date(k.confirmed_at) : null,
              },
              now,
            ),
          )
          .map((k) => ({ campaignType: k.type, at: new Date(k.at) })),
      ];
      const d = decideClaimMember(
        {
          isHoldout: r.is_holdout,
          hasEmail: r.has_email,
          emailConsent: r.email_consent,
          emailSuppressed: r.email_suppressed,
          hasPhone: r.has_phone,
          smsConsent: r.sms_consent,
        },
        claim.campaign_type,
        claim.channel,
        { frequencyCap, cooldownDays: rules.cooldownDays },
        recent,
        now,
      );
      if (d.kind === 'held_out') heldOut.push(r.customer_id);
      else if (d.kind === 'left_out') leftOut[d.reason]++;
      else {
        // 96 random bits, lower-case hex: the campaign step's tracking ids (audience.ts).
        const trackingId = `hft_${randomBytes(12).toString('hex')}`;
        members.push({
          external_id: r.external_id,
          customer_id: r.customer_id,
          tracking_id: trackingId,
          cta_url: utmLink(storefront, {
            channel: claim.channel,
            campaignType: claim.campaign_type,
            trackingId,
          }),
        });
      }
    }
    return { members, heldOut, leftOut, nextAfter: more ? pageRows[pageRows.length - 1]!.customer_id : null };
  }
}

/** The read routes' cursor, sent in the claim's body: a cursor this API did not issue is a 422 there. */
function claimCursor(raw: string | null): string | null {
  try {
    return decodeCursor(raw ?? undefined);
  } catch (err) {
    if (!(err instanceof ValidationFailedError)) throw err;
    throw new ValidationFailedError(err.issues.map((i) => ({ ...i, loc: ['body', 'cursor'] })));
  }
}

function claimHead(c: ClaimRow) {
  return {
    send_id: c.send_id,
    campaign_type: c.campaign_type,
    channel: c.channel,
    claimed_at: c.claimed_at.toISOString(),
    expires_at: c.expires_at.toISOString(),
  };
}
