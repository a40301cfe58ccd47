import { MERCHANT_PROVIDER } from '@holdfast/domain';
import { rawQuery, withTransaction, type Pool } from '@holdfast/postgres';

/**
 * Folds the account's confirmed send claims (POST /v1/sends/{send_id}/confirm, written by the
 * gateway to control.send_claims) into the ledger, in one transaction: each member as
 * `merchant_sent` (treated; attributable from its `sent_at`, exactly by its tracking id), each
 * holdout member as `held_out` (the lift's comparison group, written only now that the claim was
 * sent), then the claims marked `folded_at`. The row's id is the member's, so a fold repeated after
 * a crash writes nothing twice. An unconfirmed claim is never folded: it adds neither arm.
 *
 * Runs at the start of each campaign step, before planning (so the nightly run's cap and cool-down
 * see the confirmed sends as ledger rows) and before attribution and lift.
 *
 * @returns how many ledger rows were written.
 */
export async function foldSendClaims(pool: Pool, accountId: string, now: Date): Promise<number> {
  return withTransaction(pool, async (client) => {
    const { rows } = await rawQuery<{ send_id: string }>(
      client,
      'fold-send-claims.claims',
      `select send_id from control.send_claims
        where account_id = $1 and confirmed_at is not null and folded_at is null
        for update`,
      [accountId],
    );
    if (rows.length === 0) return 0;
    const sendIds = rows.map((r) => r.send_id);
    const inserted = await rawQuery(
      client,
      'fold-send-claims.insert-assignments',
      `insert into analytics.campaign_assignments
         (assignment_id, account_id, run_id, task_id, campaign_type, customer_id, arm, channel, provider,
          status, tracking_id, url, assigned_at, sent_at, send_id)
       select m.member_id, c.account_id, c.send_id, null, c.campaign_type, m.customer_id,
              case when m.holdout then 'holdout' else 'treated' end, c.channel, $3,
              case when m.holdout then 'held_out' else 'merchant_sent' end, m.tracking_id, m.cta_url,
              c.claimed_at, case when m.holdout then null else c.sent_at end, c.send_id
         from control.send_claims c
         join control.send_claim_members m on m.send_id = c.send_id
        where c.send_id = any($2::uuid[]) and c.account_id = $1
       on conflict (assignment_id) do nothing`,
      [accountId, sendIds, MERCHANT_PROVIDER],
    );
    await rawQuery(
      client,
      'fold-send-claims.mark-folded',
      `update control.send_claims set folded_at = $3 where account_id = $1 and send_id = any($2::uuid[])`,
      [accountId, sendIds, now],
    );
    return inserted.rowCount ?? 0;
  });
}
