import { InvalidInstantError, instantKey as parseKey } from '@holdfast/domain';
import { PoisonRecordError } from '../../projection.js';

/**
 * The domain's instantKey (integer microseconds since the epoch), with an unparseable timestamp
 * reported as a poison record: a record whose timestamp the merge rules cannot order goes to the DLQ.
 *
 * @example
 * instantKey('2024-01-01T00:00:00.000123Z'); // 1704067200000123
 */
export function instantKey(iso: string): number {
  try {
    return parseKey(iso);
  } catch (err) {
    if (err instanceof InvalidInstantError) throw new PoisonRecordError(err.message);
    throw err;
  }
}

/**
 * `instantKey`, memoised for one chunk: a chunk compares the same few texts over and over (the
 * records of one request share received_at), so each is parsed once. Owned by the chunk it serves
 * (the memo goes with it), never shared between projections.
 */
export class InstantKeys {
  private readonly parsed = new Map<string, number>();

  readonly key = (iso: string): number => {
    let key = this.parsed.get(iso);
    if (key === undefined) this.parsed.set(iso, (key = instantKey(iso)));
    return key;
  };
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
