import { InvalidArgumentError, Option } from 'commander';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A commander argument parser for ids: a mistyped id is a usage error (exit 2), not a database error. */
export function uuid(value: string): string {
  if (!UUID.test(value))
    throw new InvalidArgumentError(`"${value}" is not an id (a UUID, as printed by the list commands).`);
  return value.toLowerCase();
}

/** The mandatory `--account <id>` option most commands take. */
export function accountOption(): Option {
  return new Option('--account <id>', 'account id (see `holdfast accounts list`)')
    .makeOptionMandatory()
    .argParser(uuid);
}

/** An ISO 8601 timestamp for JSON output, or null. */
export function iso(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (v instanceof Date) return v.toISOString();
  return typeof v === 'string' || typeof v === 'number' ? new Date(v).toISOString() : null;
}

/** A timestamp for tables: ISO to the second, `-` when absent. */
export function when(v: unknown): string {
  return iso(v)?.replace(/\.\d{3}Z$/, 'Z') ?? '-';
}

/** A plain aligned text table (no colours: output is often piped). */
export function table(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)].join('\n');
}

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

/**
 * Parses a duration such as `90s`, `15m`, `24h` or `7d` (a bare number is seconds) into seconds.
 *
 * @example
 * parseDuration('24h'); // 86400
 */
export function parseDuration(value: string): number {
  const m = /^(\d+(?:\.\d+)?)([smhd]?)$/.exec(value.trim());
  if (!m) throw new InvalidArgumentError(`"${value}" is not a duration like 90s, 15m, 24h or 7d.`);
  return Math.round(Number(m[1]) * UNIT_SECONDS[m[2] || 's']!);
}

/** A commander parser for positive integers. */
export function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`"${value}" is not a positive integer.`);
  return n;
}

/** Checks a URL for an http(s) endpoint; a usage error otherwise. */
export function httpUrl(value: string): string {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw new InvalidArgumentError(`"${value}" is not a URL like https://example.com/hook.`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new InvalidArgumentError(`"${value}" must be an http:// or https:// URL.`);
  return value;
}
