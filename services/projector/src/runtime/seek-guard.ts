/**
 * Decides whether a gap between a partition's checkpoint and the first record of a batch must be
 * closed by rewinding the consumer.
 *
 * Gaps are normal: every Kafka transaction ends with a commit marker that takes an offset but never
 * reaches the handler, and aborted records are filtered too. A gap is only a problem when the
 * checkpoint moved without this process (a rebuild switched schemas, or another process owned the
 * partition), because then the consumer's position says nothing about what the read model holds.
 * So: a gap right after our own write is markers; any other gap rewinds once to checkpoint + 1, and
 * the first batch delivered from there (starting no later than the one that caused the rewind) is
 * accepted whatever its first offset, because what lies between is markers again. A later-starting
 * batch is a stale prefetch from before the rewind and rewinds again.
 */
export class SeekGuard {
  private readonly written = new Map<number, number>();
  private readonly rewinds = new Map<number, { to: number; firstSeen: number }>();

  /** The offset to seek to, or undefined when the batch can be applied as delivered. */
  check(partition: number, checkpoint: number, firstOffset: number): number | undefined {
    if (firstOffset <= checkpoint + 1) return undefined;
    if (this.written.get(partition) === checkpoint) return undefined;
    const to = checkpoint + 1;
    const prior = this.rewinds.get(partition);
    if (prior && prior.to === to && firstOffset <= prior.firstSeen) return undefined;
    this.rewinds.set(partition, {
      to,
      firstSeen: prior?.to === to ? Math.min(prior.firstSeen, firstOffset) : firstOffset,
    });
    return to;
  }

  /**
   * Checkpoints read from the database (while idle): a checkpoint behind what this process wrote means
   * the tables were switched under it. Returns the rewinds to make now, so a partition that receives
   * no new record still gets the difference re-applied.
   */
  reconcile(checkpoints: ReadonlyMap<number, number>): { partition: number; offset: number }[] {
    const rewinds: { partition: number; offset: number }[] = [];
    for (const [partition, written] of this.written) {
      const checkpoint = checkpoints.get(partition) ?? -1;
      if (checkpoint >= written) continue;
      this.written.delete(partition);
      // Whatever batch comes first from checkpoint + 1 starts at or before `written` (that record exists).
      this.rewinds.set(partition, { to: checkpoint + 1, firstSeen: written });
      rewinds.push({ partition, offset: checkpoint + 1 });
    }
    return rewinds;
  }

  /** Call after a transaction that wrote `offset` as the partition's checkpoint has committed. */
  committed(partition: number, offset: number): void {
    this.written.set(partition, offset);
    this.rewinds.delete(partition);
  }
}
