import { rawQuery, type Pool, type PoolClient } from '@holdfast/postgres';
import { anonymousSubject, blindIndex } from '@holdfast/privacy';

const q = (s: string) => `"${s.replace(/"/g, '""')}"`;

/**
 * The SQL (a subquery over `$1` account id, `$2` customer ids) of the anonymous ids of the browsers
 * whose sessions were stitched to those customers (`pixel_session_customers`). Every event of such a
 * browser is the person's: it was sealed under the browser's key (`a:<index>`), which the erasure
 * destroys, so every one of them, stitched session or not, folds without its personal fields on replay.
 */
export const stitchedAnonymousIdsSql = (s: string): string =>
  `select distinct p.anonymous_id from ${s}.pixel_events p
     join ${s}.pixel_session_customers sc
       on sc.account_id = p.account_id and sc.session_key = coalesce(p.session_id, p.anonymous_id)
    where p.account_id = $1 and sc.customer_id = any($2::uuid[])`;

/**
 * The anonymous ids in the account's pixel events whose blind index is `anonymousIdIndex` (what an
 * erasure naming a browser stores): the request holds the index only, so every distinct anonymous id
 * of the account is indexed and compared, a cost that grows with the account's browsers (one HMAC
 * each). Normally one id, or none when the browser sent nothing that was kept.
 */
export async function namedBrowsers(
  db: Pool | PoolClient,
  schema: string,
  accountId: string,
  anonymousIdIndex: string,
  indexKey: Buffer,
): Promise<string[]> {
  const { rows } = await rawQuery<{ anonymous_id: string }>(
    db,
    'erasure.named-browsers',
    `select distinct anonymous_id from ${q(schema)}.pixel_events where account_id = $1`,
    [accountId],
  );
  return rows
    .map((r) => r.anonymous_id)
    .filter((id) => blindIndex(indexKey, 'anonymous_id', id) === anonymousIdIndex);
}

/**
 * The data subjects of the browsers stitched to `customerIds`: `a:<blind index of the anonymous id>`,
 * the subjects the gateway sealed their pixel events under (`sealPixelPersonal`). Read before the
 * keys are destroyed and the read models blanked (stitching reads `raw_props.utm_content`, which the
 * blanking removes).
 */
export async function stitchedBrowserSubjects(
  db: Pool | PoolClient,
  schema: string,
  accountId: string,
  customerIds: readonly string[],
  indexKey: Buffer,
): Promise<string[]> {
  if (!customerIds.length) return [];
  const { rows } = await rawQuery<{ anonymous_id: string }>(
    db,
    'erasure.stitched-browsers',
    stitchedAnonymousIdsSql(q(schema)),
    [accountId, customerIds],
  );
  return rows.map((r) => anonymousSubject(blindIndex(indexKey, 'anonymous_id', r.anonymous_id)));
}
