/**
 * The SQL that writes one customer as the /v1/ read routes answer it (components.schemas.Customer of
 * /v1/openapi.json), as text, over the aliases `c` (the read model's customers) and `s` (the
 * customer's row of analytics.customer_scores, all null when unscored).
 *
 * Why concatenation rather than json_build_object: PostgreSQL 15's json_build_object classifies the
 * type of every argument on every call (catalogue lookups), about 45 per customer; on a 5,000-row page
 * that was ~120 ms of the backend's CPU against ~10 ms for the scan itself (docs/performance.md, "The
 * read API"). The text written here is byte for byte what json_build_object wrote (`{"k" : v, ...}`,
 * its separators, its escaping and number formats; `customer-json.int.test.ts` compares the two on
 * hostile values), so bodies and ETags did not change.
 */

/** A text literal in SQL. */
const lit = (s: string) => `'${s.replace(/'/g, "''")}'`;

/**
 * A JSON string (or null) of a text expression, as PostgreSQL's escape_json writes it: only `"`,
 * `\` and control characters are escaped, so text without them is quoted as it is, and the rest
 * goes through to_json (which is slower, not different).
 */
export const jsonString = (x: string) =>
  `coalesce(case when ${x} ~ '[\\x01-\\x1f"\\\\]' then to_json(${x})::text else '"' || ${x} || '"' end, 'null')`;

/**
 * A JSON number (or null) of a numeric, float8 or integer expression: its output function, as json
 * does; NaN and the infinities, which are no JSON numbers, quoted as json quotes them.
 */
export const jsonNumber = (x: string) =>
  `coalesce(case when ${x}::text in ('NaN', 'Infinity', '-Infinity') then '"' || ${x}::text || '"' else ${x}::text end, 'null')`;

/** A JSON boolean (or null). */
export const jsonBool = (x: string) => `coalesce(${x}::text, 'null')`;

/** A timestamptz as a JSON string in UTC ISO 8601 with milliseconds (Date.toISOString's form), or null. */
export const jsonTimestamp = (x: string) =>
  `coalesce('"' || to_char(${x} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"', 'null')`;

/** A JSON object of `[key, value SQL]` pairs (each value already JSON text, never SQL null). */
export function jsonObject(fields: readonly (readonly [string, string])[]): string {
  const parts = fields.map(([k, v], i) => `${lit(`${i === 0 ? '{' : ', '}${JSON.stringify(k)} : `)} || ${v}`);
  return `(${parts.join(' || ')} || '}')`;
}

/** `then` when `when` (SQL boolean) holds, else JSON null. */
const orNull = (when: string, then: string) => `case when ${when} then ${then} else 'null' end`;

/**
 * One customer's JSON text. `currency` is the SQL of the reporting currency (text), the currency of
 * every amount.
 */
export function customerJsonSql(currency: string): string {
  const cur = jsonString(`(${currency})::text`);
  return jsonObject([
    ['customer_id', jsonString('c.customer_id::text')],
    ['external_id', jsonString('c.external_id')],
    ['email', jsonString('c.email')],
    ['phone', jsonString('c.phone')],
    ['name', jsonString('c.name')],
    [
      'address',
      orNull(
        'coalesce(c.address_street, c.address_city, c.address_state, c.address_zip, c.address_country) is not null',
        jsonObject([
          ['street', jsonString('c.address_street')],
          ['city', jsonString('c.address_city')],
          ['state', jsonString('c.address_state')],
          ['zip', jsonString('c.address_zip')],
          ['country', jsonString('c.address_country')],
        ]),
      ),
    ],
    [
      'consent',
      jsonObject([
        ['marketing_email', jsonBool('c.consent_marketing_email')],
        ['sms', jsonBool('c.consent_sms')],
        ['suppressed', jsonBool('c.consent_suppressed')],
        ['bounced', jsonBool('c.consent_bounced')],
      ]),
    ],
    [
      'subscription',
      jsonObject([
        ['status', jsonString('c.subscription_status')],
        ['started_at', jsonTimestamp('c.subscription_started_at')],
      ]),
    ],
    ['created_at', jsonTimestamp('c.created_at')],
    ['updated_at', jsonTimestamp('greatest(c.updated_at, s.as_of)')],
    [
      'scores',
      orNull(
        's.customer_id is not null',
        jsonObject([
          ['churn_risk', jsonNumber('s.churn_risk')],
          ['p_alive', jsonNumber('s.p_alive')],
          ['lifecycle_state', jsonString('s.lifecycle_state')],
          [
            'expected_purchases',
            jsonObject([
              ['value', jsonNumber('s.expected_purchases')],
              ['horizon_days', jsonNumber('s.horizon_days')],
            ]),
          ],
          ['predicted_next_purchase_at', jsonTimestamp('s.predicted_next_purchase_at')],
          [
            'lifetime_value',
            jsonObject([
              ['amount', jsonNumber('s.lifetime_value')],
              ['currency', cur],
            ]),
          ],
          ['scored_at', jsonTimestamp('s.as_of')],
          ['model', jsonString('s.model')],
          [
            'intervals',
            orNull(
              's.expected_purchases_low is not null',
              jsonObject([
                ['level', "'0.9'"],
                [
                  'expected_purchases',
                  jsonObject([
                    ['low', jsonNumber('s.expected_purchases_low')],
                    ['high', jsonNumber('s.expected_purchases_high')],
                  ]),
                ],
                [
                  'lifetime_value',
                  jsonObject([
                    ['low', jsonNumber('s.lifetime_value_low')],
                    ['high', jsonNumber('s.lifetime_value_high')],
                    ['currency', cur],
                  ]),
                ],
              ]),
            ),
          ],
        ]),
      ),
    ],
  ]);
}
