import { ValidationFailedError } from './validation-failed.js';

const TRUE = new Set(['1', 'on', 't', 'true', 'y', 'yes']);
const FALSE = new Set(['0', 'off', 'f', 'false', 'n', 'no']);

function single(query: Readonly<Record<string, unknown>>, name: string): string | undefined {
  const v = query[name];
  if (Array.isArray(v)) return typeof v[v.length - 1] === 'string' ? (v[v.length - 1] as string) : undefined;
  return typeof v === 'string' ? v : undefined;
}

/**
 * The `dry_run` query flag (boolean, default false), read the way pydantic reads booleans; anything
 * else is a 422 at `['query', 'dry_run']`.
 *
 * @example
 * parseDryRun({ dry_run: 'true' }); // true
 */
export function parseDryRun(query: Readonly<Record<string, unknown>>): boolean {
  const raw = single(query, 'dry_run');
  if (raw === undefined) return false;
  const v = raw.trim().toLowerCase();
  if (TRUE.has(v)) return true;
  if (FALSE.has(v)) return false;
  throw new ValidationFailedError([
    {
      type: 'bool_parsing',
      loc: ['query', 'dry_run'],
      msg: 'Input should be a valid boolean, unable to interpret input',
      input: raw,
    },
  ]);
}

/**
 * An integer query parameter within [min, max], `fallback` when absent; otherwise a 422 entry at
 * `['query', name]` (int_parsing, greater_than_equal or less_than_equal).
 *
 * @example
 * parseIntParam({ limit: '20' }, 'limit', { min: 1, max: 200, fallback: 50 }); // 20
 */
export function parseIntParam(
  query: Readonly<Record<string, unknown>>,
  name: string,
  { min, max, fallback }: { min: number; max: number; fallback: number },
): number {
  const raw = single(query, name);
  if (raw === undefined) return fallback;
  const loc = ['query', name];
  if (!/^\s*[+-]?\d+\s*$/.test(raw))
    throw new ValidationFailedError([
      {
        type: 'int_parsing',
        loc,
        msg: 'Input should be a valid integer, unable to parse string as an integer',
        input: raw,
      },
    ]);
  const n = Number(raw);
  const outOfRange = (type: string, relation: string, ctx: Record<string, number>) =>
    new ValidationFailedError([{ type, loc, msg: `Input should be ${relation}`, input: raw, ctx }]);
  if (n < min) throw outOfRange('greater_than_equal', `greater than or equal to ${min}`, { ge: min });
  if (n > max) throw outOfRange('less_than_equal', `less than or equal to ${max}`, { le: max });
  return n;
}
