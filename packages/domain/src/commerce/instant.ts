const FRACTION = /T\d{2}:\d{2}:\d{2}\.(\d+)/;

/** A timestamp the merge rules cannot order (the record carrying it cannot be applied). */
export class InvalidInstantError extends RangeError {
  override readonly name = 'InvalidInstantError';
  readonly isRetriable = false;
  constructor(readonly value: string) {
    super(`unparseable timestamp "${value}"`);
  }
}

/** Turns an ISO 8601 timestamp into integer microseconds since the epoch (see {@link instantKey}). */
export type InstantKey = (iso: string) => number;

/**
 * An ISO 8601 timestamp as integer microseconds since the epoch: the precision PostgreSQL keeps, so
 * "earliest wins" decided in memory agrees with `least()` in SQL even for sub-millisecond values
 * (`Date.parse` alone would call `…00.000100Z` and `…00.000900Z` equal). Throws
 * {@link InvalidInstantError} on text it cannot parse.
 *
 * @example
 * instantKey('2024-01-01T00:00:00.000123Z'); // 1704067200000123
 */
export const instantKey: InstantKey = (iso) => {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) throw new InvalidInstantError(iso);
  const digits = FRACTION.exec(iso)?.[1] ?? '';
  return ms * 1000 + Number(digits.padEnd(6, '0').slice(3, 6));
};
