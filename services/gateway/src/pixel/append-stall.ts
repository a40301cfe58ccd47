/**
 * The collector's view of its Kafka appends in flight, to tell "Kafka is away" from "Kafka is busy".
 * Both fill the in-flight cap; only the second is load shedding (spec: a quiet 204 drop). When the
 * oldest append in flight has waited longer than the stall threshold, the log is not answering: a new
 * request is refused with 503 + Retry-After at once instead of being dropped behind a 204.
 */
export class AppendsInFlight {
  private readonly started = new Set<{ readonly at: number }>();

  get count(): number {
    return this.started.size;
  }

  /** Marks an append started at `now`; call the returned function when it settles. */
  begin(now: number): () => void {
    const token = { at: now };
    this.started.add(token);
    return () => this.started.delete(token);
  }

  /** When the oldest append in flight started (null: none in flight). */
  oldestStartedAt(): number | null {
    let oldest: number | null = null;
    for (const s of this.started) if (oldest === null || s.at < oldest) oldest = s.at;
    return oldest;
  }
}

/** What the collector does with a request's kept events. */
export type PixelAppendDecision = 'append' | 'shed' | 'unavailable';

/**
 * The rule: `unavailable` (503) when an append in flight has waited more than `stallMs` (the log
 * is not answering: a 204 would drop the events silently); else `shed` (204, spec "quiet drop ...
 * load shedding") when `maxInFlight` appends are in flight; else `append`.
 *
 * @example
 * pixelAppendDecision({ inFlight: 3, oldestStartedAt: 0, now: 5_000, maxInFlight: 64, stallMs: 2_000 }); // 'unavailable'
 */
export function pixelAppendDecision(s: {
  readonly inFlight: number;
  readonly oldestStartedAt: number | null;
  readonly now: number;
  readonly maxInFlight: number;
  readonly stallMs: number;
}): PixelAppendDecision {
  if (s.oldestStartedAt !== null && s.now - s.oldestStartedAt > s.stallMs) return 'unavailable';
  if (s.inFlight >= s.maxInFlight) return 'shed';
  return 'append';
}
