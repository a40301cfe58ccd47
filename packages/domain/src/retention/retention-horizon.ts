const DAY_MS = 86_400_000;

/**
 * The oldest timestamp a row kept for `days` may have at `now` and still be kept: rows strictly
 * older are expired. Pure, so the projector's retention pass and a rebuild's cut agree for the same
 * `now` (the periods themselves are configuration: `InfraConfig.retention`).
 *
 * @example
 * keptSince(new Date('2026-04-01T00:00:00Z'), 30) // 2026-03-02T00:00:00.000Z
 */
export function keptSince(now: Date, days: number): Date {
  return new Date(now.getTime() - days * DAY_MS);
}
