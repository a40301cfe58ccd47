import { describe, expect, it } from 'vitest';
import {
  CLAIM_TTL_MS,
  claimCountsForCap,
  claimExpiresAt,
  claimStatus,
  claimTakesPages,
  confirmOutcome,
  decideClaimMember,
  validateClaimRequest,
  validateConfirmRequest,
  type ClaimCandidate,
  type ClaimRules,
} from './merchant-send.js';

const now = new Date('2026-11-20T12:00:00Z');
const DAY = 86_400_000;
const ago = (days: number) => new Date(now.getTime() - days * DAY);
const reachable: ClaimCandidate = {
  isHoldout: false,
  hasEmail: true,
  emailConsent: true,
  emailSuppressed: false,
  hasPhone: true,
  smsConsent: true,
};
const rules: ClaimRules = { frequencyCap: { messages: 1, days: 7 }, cooldownDays: 30 };

describe('decideClaimMember: who a merchant’s claim hands out (decideSend’s rules)', () => {
  it('given a reachable customer not in the holdout, when claimed, then they are a member', () => {
    expect(decideClaimMember(reachable, 'win_back', 'email', rules, [], now)).toEqual({ kind: 'member' });
  });

  it('given a holdout customer, when claimed, then they are held out, never a member', () => {
    expect(decideClaimMember({ ...reachable, isHoldout: true }, 'win_back', 'email', rules, [], now)).toEqual(
      {
        kind: 'held_out',
      },
    );
  });

  it('given the same type decided 10 days ago, when claimed, then cooling down (both arms alike)', () => {
    const recent = [{ campaignType: 'win_back', at: ago(10) }];
    for (const isHoldout of [false, true])
      expect(decideClaimMember({ ...reachable, isHoldout }, 'win_back', 'email', rules, recent, now)).toEqual(
        {
          kind: 'left_out',
          reason: 'cooling_down',
        },
      );
  });

  it('given another type 3 days ago and a cap of 1 per 7 days, when claimed, then capped; 8 days ago, a member', () => {
    expect(
      decideClaimMember(reachable, 'win_back', 'email', rules, [{ campaignType: 'vip', at: ago(3) }], now),
    ).toEqual({ kind: 'left_out', reason: 'capped' });
    expect(
      decideClaimMember(reachable, 'win_back', 'email', rules, [{ campaignType: 'vip', at: ago(8) }], now),
    ).toEqual({ kind: 'member' });
  });

  it('given no email consent, when claimed for email, then no_consent; for sms with sms consent, a member', () => {
    const c = { ...reachable, emailConsent: false };
    expect(decideClaimMember(c, 'vip', 'email', rules, [], now)).toEqual({
      kind: 'left_out',
      reason: 'no_consent',
    });
    expect(decideClaimMember(c, 'vip', 'sms', rules, [], now)).toEqual({ kind: 'member' });
  });

  it('given a suppressed or bounced address, when claimed for email, then suppressed (never the sms fallback)', () => {
    expect(
      decideClaimMember({ ...reachable, emailSuppressed: true }, 'vip', 'email', rules, [], now),
    ).toEqual({
      kind: 'left_out',
      reason: 'suppressed',
    });
  });

  it('given the type not enabled for Holdfast’s own sends, when the merchant claims it, then it is decided all the same', () => {
    // decideClaimMember takes no enabled-types setting: the merchant's claim is its own decision.
    expect(decideClaimMember(reachable, 'replenishment', 'email', rules, [], now).kind).toBe('member');
  });
});

describe('a claim’s life: open, confirmed, expired', () => {
  const claimedAt = ago(0.5);
  const open = { expiresAt: claimExpiresAt(claimedAt), confirmedAt: null };

  it('given a claim, then it expires 24 h after it was made', () => {
    expect(claimExpiresAt(claimedAt).getTime() - claimedAt.getTime()).toBe(CLAIM_TTL_MS);
    expect(CLAIM_TTL_MS).toBe(24 * 3_600_000);
  });

  it('given an open claim, when confirmed, then confirm; it takes pages and counts for the cap', () => {
    expect(claimStatus(open, now)).toBe('open');
    expect(confirmOutcome(open, now)).toBe('confirm');
    expect(claimTakesPages(open, now)).toBe(true);
    expect(claimCountsForCap(open, now)).toBe(true);
  });

  it('given a confirmed claim, when confirmed again, then the first confirm’s answer; no pages; still counts', () => {
    const c = { ...open, confirmedAt: now };
    expect(confirmOutcome(c, new Date(now.getTime() + 2 * DAY))).toBe('already_confirmed');
    expect(claimTakesPages(c, now)).toBe(false);
    expect(claimCountsForCap(c, new Date(now.getTime() + 2 * DAY))).toBe(true);
  });

  it('given an unconfirmed claim past expires_at, then expired: no confirm, no pages, not counted', () => {
    const later = new Date(open.expiresAt.getTime());
    expect(claimStatus(open, later)).toBe('expired');
    expect(confirmOutcome(open, later)).toBe('expired');
    expect(claimTakesPages(open, later)).toBe(false);
    expect(claimCountsForCap(open, later)).toBe(false);
  });
});

describe('validateClaimRequest', () => {
  it('given type and channel, then a new claim of 1,000 members at most', () => {
    expect(validateClaimRequest({ campaign_type: 'win_back', channel: 'email' })).toEqual({
      ok: true,
      request: { campaignType: 'win_back', channel: 'email', sendId: null, cursor: null, limit: 1000 },
    });
  });

  it('given send_id and cursor, then a further page', () => {
    const id = '00000000-0000-4000-8000-000000000001';
    const v = validateClaimRequest({ send_id: id, cursor: 'abc', limit: 5000 });
    expect(v).toMatchObject({ ok: true, request: { sendId: id, cursor: 'abc', limit: 5000 } });
  });

  it('given bad fields, then 422 entries at each field', () => {
    const v = validateClaimRequest({ campaign_type: 'spam', channel: 'fax', limit: 5001, extra: 1 });
    expect(v.ok).toBe(false);
    if (!v.ok)
      expect(v.detail.map((d) => d.loc)).toEqual([
        ['body', 'extra'],
        ['body', 'campaign_type'],
        ['body', 'channel'],
        ['body', 'limit'],
      ]);
  });

  it('given neither a type nor a send_id, then missing fields; a cursor without send_id is refused', () => {
    const v = validateClaimRequest({ cursor: 'x' });
    expect(v.ok).toBe(false);
    if (!v.ok)
      expect(v.detail.map((d) => [d.loc[1], d.type])).toEqual([
        ['campaign_type', 'missing'],
        ['channel', 'missing'],
        ['cursor', 'value_error'],
      ]);
    expect(validateClaimRequest([]).ok).toBe(false);
  });
});

describe('validateConfirmRequest', () => {
  const claimedAt = ago(1);
  it('given sent_at between the claim and now, then accepted', () => {
    expect(validateConfirmRequest({ sent_at: '2026-11-20T11:00:00Z' }, claimedAt, now)).toEqual({
      ok: true,
      sentAt: new Date('2026-11-20T11:00:00Z'),
    });
  });

  it('given sent_at before the claim, in the future, without offset, or missing, then 422 at sent_at', () => {
    for (const body of [
      { sent_at: '2026-11-01T00:00:00Z' },
      { sent_at: '2026-11-21T00:00:00Z' },
      { sent_at: '2026-11-20T11:00:00' },
      {},
    ]) {
      const v = validateConfirmRequest(body, claimedAt, now);
      expect(v.ok).toBe(false);
      if (!v.ok) expect(v.detail[0]!.loc).toEqual(['body', 'sent_at']);
    }
  });
});
