import { describeFailure, NotReadyError } from '@holdfast/platform';

/**
 * What a consumer is doing, for /readyz: joined to its group, not stuck retrying a dependency, and
 * not stuck in one chunk. Updated by the runner; read by the ops listener.
 */
export class ConsumerHealth {
  private joined = false;
  private failing: { since: number; error: string } | undefined;
  private busySince: number | undefined;
  private lastProgress = Date.now();

  constructor(readonly groupId: string) {}

  /** The group has assigned this member its partitions (possibly none: more members than partitions). */
  onJoin(): void {
    this.joined = true;
  }

  /** The member left the group (crash, stop, rebalance in progress). */
  onLeave(): void {
    this.joined = false;
  }

  onChunkStart(): void {
    this.busySince ??= Date.now();
  }

  /** A chunk was applied: progress, and any transient failure is over. */
  onChunkDone(): void {
    this.busySince = undefined;
    this.failing = undefined;
    this.lastProgress = Date.now();
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
   * Throws NotReadyError unless the consumer is joined, not retrying a failure, and not busy with one
   * chunk for longer than `stuckMs`.
   */
  check(stuckMs: number): void {
    if (!this.joined) throw new NotReadyError(`${this.groupId}: not joined to its group`);
    if (this.failing)
      throw new NotReadyError(
        `${this.groupId}: retrying ${this.failing.error} for ${seconds(this.failing.since)} s`,
      );
    if (this.busySince !== undefined && Date.now() - this.busySince > stuckMs)
      throw new NotReadyError(`${this.groupId}: one chunk busy for ${seconds(this.busySince)} s`);
  }
}

const seconds = (since: number) => Math.round((Date.now() - since) / 1000);
