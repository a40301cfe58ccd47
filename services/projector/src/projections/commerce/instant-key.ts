import { PoisonRecordError } from '../../projection.js';

const FRACTION = /T\d{2}:\d{2}:\d{2}\.(\d+)/;

/**
 * An ISO 8601 timestamp as integer microseconds since the epoch: the precision PostgreSQL keeps, so
 * "earliest wins" decided in memory agrees with `least()` in SQL even for sub-millisecond values
 * (`Date.parse` alone would call `…00.000100Z` and `…00.000900Z` equal).
 *
 * @example
 * instantKey('2024-01-01T00:00:00.000123Z'); // 1704067200000123
 */
export function instantKey(iso: string): number {
  // A chunk compares the same few texts over and over (the records of one request share
  // received_at): parse each once. Bounded, so a stream of distinct values costs one clear per 4,096.
  let key = parsed.get(iso);
  if (key === undefined) {
    key = parseInstant(iso);
    if (parsed.size >= 4096) parsed.clear();
    parsed.set(iso, key);
  }
  return key;
}

const parsed = new Map<string, number>();

function parseInstant(iso: string): number {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) throw new PoisonRecordError(`unparseable timestamp "${iso}"`);
  const digits = FRACTION.exec(iso)?.[1] ?? '';
  return ms * 1000 + Number(digits.padEnd(6, '0').slice(3, 6));
}

/** The earlier of two timestamps (null = absent). */
export function earliest(a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null) return a;
  return instantKey(b) < instantKey(a) ? b : a;
}

/** The later of two timestamps; on a tie the second (the later record in the log). */
export function latest(a: string, b: string): string {
  return instantKey(b) >= instantKey(a) ? b : a;
}
