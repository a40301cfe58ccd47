import { describeFailure, NotReadyError } from '@holdfast/platform';

/**
 * What a consumer is doing, for /readyz and for the stall watchdog: joined to its group, fetching,
 * not stuck retrying a dependency, and not stuck in one chunk. Updated by the runner from its client's
 * events (client-agnostic: any Kafka client that reports joins, fetches and chunks can feed it).
 */
export class ConsumerHealth {
  private joined = false;
  private failing: { since: number; error: string } | undefined;
  private busySince: number | undefined;
  private attemptSince: number | undefined;
  private lastProgress = Date.now();
  private lastAlive = Date.now();

  /**
   * @param stallMs not joined and not fetching for longer than this (no chunk in flight) is a stall:
   *   reported not ready, and the runner's watchdog recreates the consumer.
   */
  constructor(
    readonly groupId: string,
    readonly stallMs = Infinity,
  ) {}

  /** The group has assigned this member its partitions (possibly none: more members than partitions). */
  onJoin(): void {
    this.joined = true;
    this.lastAlive = Date.now();
  }

  /** The member left the group (crash, stop, rebalance in progress). */
  onLeave(): void {
    this.joined = false;
  }

  /**
   * The client started a fetch. An idle consumer fetches too (a long poll that returns nothing), so
   * fetches going on mean alive even when there is nothing to read.
   */
  onFetch(): void {
    this.lastAlive = Date.now();
  }

  /**
   * The process itself could not run (its event loop was blocked: a CPU-bound recompute, a stop the
   * world pause): no client could have fetched meanwhile, so that time is not the consumer's stall.
   */
  onProcessPaused(): void {
    this.lastAlive = Date.now();
  }

  onChunkStart(): void {
    this.busySince ??= Date.now();
  }

  /** One attempt at the chunk in flight begins (the first, or a retry after a transient failure). */
  onAttemptStart(): void {
    this.attemptSince = Date.now();
  }

  /**
   * How long the current attempt at a chunk has been in flight, in ms; 0 when none is. A retried
   * chunk starts a new attempt each time: a long outage retried every few seconds is not a hang.
   */
  attemptInFlightMs(now = Date.now()): number {
    return this.busySince !== undefined && this.attemptSince !== undefined
      ? Math.max(0, now - this.attemptSince)
      : 0;
  }

  /** A chunk was applied: progress, and any transient failure is over. */
  onChunkDone(): void {
    this.busySince = this.attemptSince = undefined;
    this.failing = undefined;
    this.lastProgress = this.lastAlive = Date.now();
  }

  /** The chunk in flight was given up (the partition went elsewhere): no longer busy. */
  onChunkAbandoned(): void {
    this.busySince = this.attemptSince = undefined;
    this.lastAlive = Date.now();
  }

  /** A chunk failed transiently and will be retried. */
  onRetry(err: unknown): void {
    const d = describeFailure(err);
    this.failing ??= { since: Date.now(), error: d.code ? `${d.error} (${d.code})` : d.error };
  }

  /** When the last chunk was applied (ms since the epoch). */
  lastProgressAt(): number {
    return this.lastProgress;
  }

  /**
   * How long the consumer has neither joined, fetched nor applied anything, in ms; 0 while a chunk is
   * in flight (a long or retried chunk is the `stuckMs` check's business, not a stall).
   */
  stalledMs(now = Date.now()): number {
    return this.busySince !== undefined ? 0 : Math.max(0, now - this.lastAlive);
  }

  /**
   * Throws NotReadyError unless the consumer is joined, fetching, not retrying a failure, and not
   * busy with one chunk for longer than `stuckMs`.
   */
  check(stuckMs: number): void {
    if (!this.joined) throw new NotReadyError(`${this.groupId}: not joined to its group`);
    if (this.stalledMs() > this.stallMs)
      throw new NotReadyError(`${this.groupId}: not fetching for ${seconds(this.lastAlive)} s`);
    if (this.failing)
      throw new NotReadyError(
        `${this.groupId}: retrying ${this.failing.error} for ${seconds(this.failing.since)} s`,
      );
    if (this.busySince !== undefined && Date.now() - this.busySince > stuckMs)
      throw new NotReadyError(`${this.groupId}: one chunk busy for ${seconds(this.busySince)} s`);
  }
}

const seconds = (since: number) => Math.round((Date.now() - since) / 1000);
