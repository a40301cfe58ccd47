import { rawQuery, type PoolClient } from '@holdfast/postgres';
import { stitchedAnonymousIdsSql } from './pixel-subjects.js';

/** Rows a blanking changed, per table. */
export interface BlankedRows {
  readonly customers: number;
  readonly customerEvents: number;
  readonly orders: number;
  readonly zeroParty: number;
  readonly pixelEvents: number;
  readonly deadLetters: number;
}

const q = (s: string) => `"${s.replace(/"/g, '""')}"`;

/**
 * Blanks a person in the read models of `schema`, inside the caller's transaction, to what a replay of
 * their shredded records folds (a record whose subject key is gone folds as if its personal fields
 * were absent): customers' personal columns (email, phone, name, address) null; their orders' buyer
 * fields (email, phone, customer_name, shipping city, state, zip) null, amounts, dates, refunds and
 * products untouched; their zero-party submissions' email null; every pixel event of a browser a
 * session of which was stitched to them loses what the gateway sealed under the browser's key
 * (`raw_props`, `search`, `page_title`: a replay folds them null, the key being destroyed); the dead
 * letters of records encrypted for one of `subjects` are deleted (their bytes are found by the subject
 * id, which every such record carries in clear); their custom-api events lose their `content_key`
 * (a hash of the event as posted, personal fields included: a replay cannot compute it either). Blind
 * indexes stay: a replay writes them again, and they reveal nothing without the destroyed keys.
 *
 * First it locks the commerce projection's checkpoint rows (every partition), which every projector
 * chunk locks before it folds: a chunk in flight (possibly decrypting with a key read before the
 * destruction) commits before the blanking, and none starts until it commits. Then it rewrites them
 * unchanged, which gives them a new version: a projector's identity memory, exact only at the version
 * of its own last commit, reloads the blanked customers instead of writing its copy back.
 */
export async function blankPerson(
  c: PoolClient,
  schema: string,
  accountId: string,
  customerIds: readonly string[],
  subjects: readonly string[],
  /** Browsers the request named (`anonymous_id`), blanked like the stitched ones. */
  browsers: readonly string[] = [],
): Promise<BlankedRows> {
  const s = q(schema);
  const run = async (name: string, text: string, params: unknown[]) =>
    (await rawQuery(c, name, text, params)).rowCount ?? 0;
  const { rows: checkpoints } = await rawQuery<{ partition: number }>(
    c,
    'erasure.lock-commerce-checkpoints',
    // The pixel projection's too: a pixel chunk opened with a browser key read before its destruction
    // commits before the blanking below, never after it.
    `select partition from ${s}.projection_checkpoints
      where topic in ('holdfast.commerce', 'holdfast.pixel-events')
      order by projection, partition for update`,
  );
  if (checkpoints.length)
    await rawQuery(
      c,
      'erasure.touch-commerce-checkpoints',
      `update ${s}.projection_checkpoints set last_offset = last_offset where topic = 'holdfast.commerce'`,
    );
  const customers = await run(
    'erasure.blank-customers',
    `update ${s}.customers set email = null, phone = null, name = null, address_street = null,
            address_city = null, address_state = null, address_zip = null, address_country = null
      where account_id = $1 and customer_id = any($2::uuid[])`,
    [accountId, customerIds],
  );
  const orders = await run(
    'erasure.blank-orders',
    `update ${s}.orders set email = null, phone = null, customer_name = null, shipping_city = null,
            shipping_state = null, shipping_zip = null
      where account_id = $1 and customer_id = any($2::uuid[])`,
    [accountId, customerIds],
  );
  const customerEvents = await run(
    'erasure.blank-customer-events',
    `update ${s}.customer_events set content_key = null
      where account_id = $1 and customer_id = any($2::uuid[]) and content_key is not null`,
    [accountId, customerIds],
  );
  const zeroParty = await run(
    'erasure.blank-zero-party',
    `update ${s}.zero_party_submissions set email = null
      where account_id = $1 and customer_id = any($2::uuid[])`,
    [accountId, customerIds],
  );
  const pixelEvents = await run(
    'erasure.blank-pixel-events',
    `update ${s}.pixel_events p set raw_props = null, search = null, page_title = null
      where p.account_id = $1
        and (p.anonymous_id in (${stitchedAnonymousIdsSql(s)}) or p.anonymous_id = any($3::text[]))
        and (p.raw_props is not null or p.search is not null or p.page_title is not null)`,
    [accountId, customerIds, browsers],
  );
  const deadLetters = subjects.length
    ? await run(
        'erasure.delete-dead-letters',
        `delete from ${s}.dead_letters d
          where d.account_id = $1::text and d.record_value is not null
            and exists (select from unnest($2::text[]) subject
                         where position(convert_to(subject, 'UTF8') in d.record_value) > 0)`,
        [accountId, subjects],
      )
    : 0;
  return { customers, customerEvents, orders, zeroParty, pixelEvents, deadLetters };
}
