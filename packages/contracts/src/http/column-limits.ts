/**
 * What the read models can store, in one place: the request schemas (maxLength, maximum), the domain
 * rules (amount and timestamp ranges) and the projector's DDL (`AMOUNT_SQL_TYPE`) all read these, so
 * "accepted" on the HTTP side can never mean "refused by PostgreSQL" on the projector side.
 *
 * Why each bound:
 * - a B-tree index entry must fit in about a third of a page (2,704 bytes): `ID_CHARS`, `EMAIL_CHARS`
 *   bound every column that is indexed (order_id, customers.external_id, email) at 4 bytes per
 *   character with room for the account id beside it;
 * - `numeric(18,4)` holds absolute values below 10^14 (`AMOUNT_ABS_BELOW`);
 * - `timestamptz` and the ISO form the log carries: UTC years 0001 to 9999 (`TIMESTAMP_MIN_MS`,
 *   `TIMESTAMP_MAX_MS`);
 * - integers travel as Avro longs through JavaScript numbers, and avsc encodes a long only up to
 *   2^53 − 2 (9,007,199,254,740,990; one more threw inside the gateway): `SAFE_INTEGER_MAX`;
 * - other text is unindexed but bounded so one row stays a small Kafka record (`TEXT_CHARS`).
 * Characters PostgreSQL cannot store at all (U+0000, unpaired surrogates) are refused for the whole
 * request body before any schema runs (see the domain's `scanJsonText`).
 *
 * @example
 * import { COLUMN_LIMITS } from '@holdfast/contracts';
 * if (id.length > COLUMN_LIMITS.ID_CHARS) reject();
 */
export const COLUMN_LIMITS = Object.freeze({
  /** order_id, customer_id / external_id and other ids (indexed). */
  ID_CHARS: 255,
  /** Emails (indexed on customers). RFC 5321 allows 254; 320 is the historical 64 + 1 + 255. */
  EMAIL_CHARS: 320,
  /** A phone as sent, before E.164 normalisation (the stored form is at most 16 characters). */
  PHONE_CHARS: 64,
  /** customer_name, name. */
  NAME_CHARS: 512,
  /** Other free text: product_name, source (may be a landing URL), labels, address lines. */
  TEXT_CHARS: 2048,
  /** discount_codes and interests: items per array and characters per item. */
  LIST_ITEMS: 100,
  LIST_ITEM_CHARS: 255,
  /** Nesting of any request body (objects and arrays); free-form raw_props and attributes included. */
  JSON_DEPTH: 32,
  /** numeric(18,4): absolute value must stay below 10^14. */
  AMOUNT_PRECISION: 18,
  AMOUNT_SCALE: 4,
  AMOUNT_ABS_BELOW: 1e14,
  /** Integers stored as bigint and carried as Avro longs in JavaScript numbers (avsc's bound). */
  SAFE_INTEGER_MAX: Number.MAX_SAFE_INTEGER - 1,
  /** 0001-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z: the ISO 8601 four-digit years. */
  TIMESTAMP_MIN_MS: -62_135_596_800_000,
  TIMESTAMP_MAX_MS: Date.UTC(9999, 11, 31, 23, 59, 59, 999),
});

/** The SQL type of every money column of the read models (`numeric(18,4)`). */
export const AMOUNT_SQL_TYPE = `numeric(${COLUMN_LIMITS.AMOUNT_PRECISION},${COLUMN_LIMITS.AMOUNT_SCALE})`;

/**
 * True when `amount` fits a money column: finite, and below 10^14 in absolute value.
 *
 * @example
 * amountFits(1e300); // false
 */
export function amountFits(amount: number): boolean {
  return Number.isFinite(amount) && Math.abs(amount) < COLUMN_LIMITS.AMOUNT_ABS_BELOW;
}
