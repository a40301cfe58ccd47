import type { SchemaError } from '@holdfast/contracts';

/**
 * One entry of a 422 body, in the style of pydantic v2 / FastAPI:
 * `{loc: ['body', 'orders', 3, 'order_id'], msg: 'Field required', type: 'missing'}`.
 * `input` is included only for scalar inputs (strings, numbers, booleans, null) to keep 422 bodies small,
 * and never when it may be personal data or is long (see `echoable`).
 */
export interface ValidationIssue {
  readonly loc: readonly (string | number)[];
  readonly msg: string;
  readonly type: string;
  readonly input?: unknown;
  readonly ctx?: Readonly<Record<string, unknown>>;
}

/** Outcome of validating a request body: the typed value, or the 422 `detail` list. */
export type Validated<T> =
  ({ readonly ok: true } & T) | { readonly ok: false; readonly detail: ValidationIssue[] };

/** A 422 lists at most this many entries; enough to fix a file, small enough to send back. */
export const MAX_VALIDATION_ISSUES = 100;

const NUMERIC_STRING = /^\s*[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\s*$/;

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** `'a', 'b' or 'c'`, as pydantic phrases an enum's expected values. */
export function expectedValues(values: readonly unknown[]): string {
  const quoted = values
    .filter((v) => v !== null)
    .map((v) => `'${typeof v === 'string' ? v : JSON.stringify(v)}'`);
  return quoted.length <= 1 ? (quoted[0] ?? '') : `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}`;
}

const isScalar = (v: unknown) =>
  v === null || (typeof v !== 'object' && typeof v !== 'function' && v !== undefined);

/** Fields whose values are personal data: a 422 never sends them back (logs and proxies keep answers). */
const PERSONAL_FIELDS = new Set(['email', 'phone', 'name', 'customer_name']);
/** Longer strings are not echoed: an answer stays small whatever was sent. */
export const MAX_ECHOED_INPUT_CHARS = 256;

/**
 * Whether a 422 entry may carry the offending value as `input`: scalars only, never at a personal
 * field, never a string that contains `@` (an email in the wrong field) or is longer than
 * `MAX_ECHOED_INPUT_CHARS`.
 */
export function echoable(loc: readonly (string | number)[], input: unknown): boolean {
  if (!isScalar(input)) return false;
  const field = loc[loc.length - 1];
  if (typeof field === 'string' && PERSONAL_FIELDS.has(field)) return false;
  return typeof input !== 'string' || (input.length <= MAX_ECHOED_INPUT_CHARS && !input.includes('@'));
}

/** Resolves a JSON pointer against the body: array positions become numbers, as in pydantic locs. */
function locate(body: unknown, pointer: string): { loc: (string | number)[]; value: unknown } {
  const loc: (string | number)[] = ['body'];
  let value = body;
  if (pointer === '') return { loc, value };
  for (const raw of pointer.slice(1).split('/')) {
    const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(value)) {
      const i = Number(seg);
      loc.push(i);
      value = value[i];
    } else {
      loc.push(seg);
      value =
        typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[seg] : undefined;
    }
  }
  return { loc, value };
}

function typeIssue(
  expected: string,
  value: unknown,
  isModel: boolean,
): Pick<ValidationIssue, 'type' | 'msg'> {
  switch (expected) {
    case 'string':
      return { type: 'string_type', msg: 'Input should be a valid string' };
    case 'number':
      return typeof value === 'string' && !NUMERIC_STRING.test(value)
        ? { type: 'float_parsing', msg: 'Input should be a valid number, unable to parse string as a number' }
        : { type: 'float_type', msg: 'Input should be a valid number' };
    case 'integer':
      if (typeof value === 'number')
        return {
          type: 'int_from_float',
          msg: 'Input should be a valid integer, got a number with a fractional part',
        };
      return typeof value === 'string'
        ? {
            type: 'int_parsing',
            msg: 'Input should be a valid integer, unable to parse string as an integer',
          }
        : { type: 'int_type', msg: 'Input should be a valid integer' };
    case 'boolean':
      return typeof value === 'string'
        ? { type: 'bool_parsing', msg: 'Input should be a valid boolean, unable to interpret input' }
        : { type: 'bool_type', msg: 'Input should be a valid boolean' };
    case 'array':
      return { type: 'list_type', msg: 'Input should be a valid list' };
    default:
      return isModel
        ? {
            type: 'model_attributes_type',
            msg: 'Input should be a valid dictionary or object to extract fields from',
          }
        : { type: 'dict_type', msg: 'Input should be a valid dictionary' };
  }
}

/** Extra checks a caller can phrase for a `format` failure (e.g. naive timestamps). */
export type FormatPhraser = (
  format: string,
  value: unknown,
) => Pick<ValidationIssue, 'type' | 'msg'> | undefined;

function toIssue(e: SchemaError, body: unknown, phraseFormat?: FormatPhraser): ValidationIssue {
  const { loc, value } = locate(body, e.instancePath);
  const p = e.params as Record<string, unknown>;
  const withInput = (
    issue: Omit<ValidationIssue, 'loc'>,
    at = loc,
    input: unknown = value,
  ): ValidationIssue => (echoable(at, input) ? { ...issue, loc: at, input } : { ...issue, loc: at });
  switch (e.keyword) {
    case 'required':
      return { type: 'missing', loc: [...loc, String(p.missingProperty)], msg: 'Field required' };
    case 'type': {
      if (value === undefined && loc.length === 1) return { type: 'missing', loc, msg: 'Field required' };
      const types = (Array.isArray(p.type) ? p.type : String(p.type).split(',')) as string[];
      const expected = types.find((t) => t !== 'null') ?? 'null';
      const parent = e.parentSchema as { properties?: unknown } | undefined;
      return withInput(typeIssue(expected, value, parent?.properties !== undefined));
    }
    case 'minLength':
    case 'maxLength': {
      const n = Number(p.limit);
      const short = e.keyword === 'minLength';
      return withInput({
        type: short ? 'string_too_short' : 'string_too_long',
        msg: `String should have ${short ? 'at least' : 'at most'} ${plural(n, 'character')}`,
        ctx: { [short ? 'min_length' : 'max_length']: n },
      });
    }
    case 'minItems':
    case 'maxItems': {
      const n = Number(p.limit);
      const actual = Array.isArray(value) ? value.length : 0;
      const short = e.keyword === 'minItems';
      return {
        type: short ? 'too_short' : 'too_long',
        loc,
        msg: `List should have ${short ? 'at least' : 'at most'} ${plural(n, 'item')} after validation, not ${actual}`,
        ctx: { field_type: 'List', [short ? 'min_length' : 'max_length']: n, actual_length: actual },
      };
    }
    case 'enum': {
      const expected = expectedValues(p.allowedValues as unknown[]);
      return withInput({ type: 'enum', msg: `Input should be ${expected}`, ctx: { expected } });
    }
    case 'format': {
      const format = String(p.format);
      const phrased = phraseFormat?.(format, value);
      if (phrased) return withInput(phrased);
      if (format === 'uuid') return withInput({ type: 'uuid_parsing', msg: 'Input should be a valid UUID' });
      return withInput({ type: 'datetime_parsing', msg: 'Input should be a valid datetime' });
    }
    case 'minimum':
      return withInput({
        type: 'greater_than_equal',
        msg: `Input should be greater than or equal to ${String(p.limit)}`,
        ctx: { ge: p.limit },
      });
    case 'maximum':
      return withInput({
        type: 'less_than_equal',
        msg: `Input should be less than or equal to ${String(p.limit)}`,
        ctx: { le: p.limit },
      });
    case 'additionalProperties': {
      const key = String(p.additionalProperty);
      const input =
        typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
      return withInput(
        { type: 'extra_forbidden', msg: 'Extra inputs are not permitted' },
        [...loc, key],
        input,
      );
    }
    default:
      return withInput({ type: 'value_error', msg: `Value error, ${e.message ?? 'invalid value'}` });
  }
}

/**
 * Turns ajv errors into 422 `detail` entries: one per location (the first error wins when ajv
 * reports several for the same value), in ajv's order, at most `MAX_VALIDATION_ISSUES`.
 * `skip` drops errors the caller handles elsewhere (the batch row-count bounds).
 */
export function toValidationIssues(
  errors: readonly SchemaError[] | null | undefined,
  body: unknown,
  options: { skip?: (e: SchemaError) => boolean; phraseFormat?: FormatPhraser } = {},
): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  const seen = new Set<string>();
  for (const e of errors ?? []) {
    if (options.skip?.(e)) continue;
    const issue = toIssue(e, body, options.phraseFormat);
    const key = JSON.stringify(issue.loc);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(issue);
    if (out.length >= MAX_VALIDATION_ISSUES) break;
  }
  return out;
}
