import { COLUMN_LIMITS } from '@holdfast/contracts/http';
import { echoable, type ValidationIssue } from '../shared/validation-issue.js';
import { isPlainObject } from '../shared/text.js';

const { ID_CHARS, EMAIL_CHARS, PHONE_CHARS, NAME_CHARS, TEXT_CHARS, LIST_ITEMS, LIST_ITEM_CHARS } =
  COLUMN_LIMITS;

/** Which free-form body: the keys each route reads, with the longest string each may be. */
const READ_KEYS = {
  'custom-api': {
    external_id: ID_CHARS,
    customer_id: ID_CHARS,
    email: EMAIL_CHARS,
    phone: PHONE_CHARS,
    name: NAME_CHARS,
    event_type: ID_CHARS,
    source_label: TEXT_CHARS,
  },
  'zero-party': {
    email: EMAIL_CHARS,
    external_customer_id: ID_CHARS,
    external_id: ID_CHARS,
    customer_id: ID_CHARS,
    source_label: TEXT_CHARS,
    quiz_version: ID_CHARS,
    completed_at: TEXT_CHARS,
  },
} as const;
const ADDRESS_KEYS = ['street', 'city', 'state', 'zip', 'country'] as const;

function tooLong(loc: (string | number)[], value: string, max: number): ValidationIssue {
  const issue = {
    type: 'string_too_long',
    loc,
    msg: `String should have at most ${max} characters`,
    ctx: { max_length: max },
  };
  return echoable(loc, value) ? { ...issue, input: value } : issue;
}

function checkValue(loc: (string | number)[], value: unknown, max: number, out: ValidationIssue[]): void {
  if (typeof value === 'string' && value.length > max) out.push(tooLong(loc, value, max));
  else if (typeof value === 'number' && Math.abs(value) > COLUMN_LIMITS.SAFE_INTEGER_MAX)
    out.push({
      type: 'value_error',
      loc,
      msg: `Value error, a numeric id must be within ±${COLUMN_LIMITS.SAFE_INTEGER_MAX}; send larger ids as strings`,
      input: value,
    });
}

/**
 * The storage bounds of a free-form webhook body (POST /webhooks/custom-api, POST /webhooks/zero-party):
 * the keys the route reads must fit the read models (`COLUMN_LIMITS`): ids at most 255 characters (they
 * are indexed), emails 320, phones 64, names 512, other text 2,048; numeric ids within ±(2^53 − 1)
 * (beyond, the number is not the id that was sent); zero-party `interests` at most 100 items of 255
 * characters. Keys of another type still count as absent (the body is free-form); a value of the
 * right type that cannot be stored is a 422 at its loc, not silently dropped (dropping an identity
 * would link the event to someone else). Body-wide rules (depth, NUL, unpaired surrogates) are
 * checked before parsing (`scanJsonText`).
 *
 * @example
 * checkWebhookBody('custom-api', { email: 'x'.repeat(400) + '@b.co' })[0]?.type; // 'string_too_long'
 */
export function checkWebhookBody(route: keyof typeof READ_KEYS, body: unknown): ValidationIssue[] {
  if (!isPlainObject(body)) return [];
  const out: ValidationIssue[] = [];
  for (const [key, max] of Object.entries(READ_KEYS[route])) checkValue(['body', key], body[key], max, out);
  if (route === 'custom-api' && isPlainObject(body.address))
    for (const key of ADDRESS_KEYS) checkValue(['body', 'address', key], body.address[key], TEXT_CHARS, out);
  if (route === 'zero-party' && Array.isArray(body.interests)) {
    const interests: unknown[] = body.interests;
    if (interests.length > LIST_ITEMS)
      out.push({
        type: 'too_long',
        loc: ['body', 'interests'],
        msg: `List should have at most ${LIST_ITEMS} items after validation, not ${interests.length}`,
        ctx: { field_type: 'List', max_length: LIST_ITEMS, actual_length: interests.length },
      });
    else
      interests.forEach((v, i) => {
        if (typeof v === 'string') checkValue(['body', 'interests', i], v, LIST_ITEM_CHARS, out);
      });
  }
  return out;
}
