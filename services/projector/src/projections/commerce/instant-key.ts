import { InvalidInstantError, instantKey as parseKey } from '@holdfast/domain';
import { PoisonRecordError } from '../../projection.js';

/**
 * The domain's instantKey (integer microseconds since the epoch), memoised, with an unparseable
 * timestamp reported as a poison record.
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

// A record whose timestamp the merge rules cannot order is poison: it goes to the DLQ.
function parseInstant(iso: string): number {
  try {
    return parseKey(iso);
  } catch (err) {
    if (err instanceof InvalidInstantError) throw new PoisonRecordError(err.message);
    throw err;
  }
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
