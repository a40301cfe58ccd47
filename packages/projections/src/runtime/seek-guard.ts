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
  /**
   * Rewinds the idle watch asked for and no batch has served yet, with when they were last asked.
   * A seek can be lost (made while the group rebalances, the partition briefly unassigned), and an
   * idle partition has no next batch to notice: the consumer would sit at the high watermark while
   * the switched-in tables lack the difference. So the watch asks again until a chunk commits.
   */
  private readonly pending = new Map<number, { to: number; askedAt: number }>();

  /** @param reaskMs how long a rewind asked by the watch may go unserved before it is asked again */
  constructor(private readonly reaskMs = 5_000) {}

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
  reconcile(
    checkpoints: ReadonlyMap<number, number>,
    now = Date.now(),
  ): { partition: number; offset: number }[] {
    const rewinds: { partition: number; offset: number }[] = [];
    for (const [partition, written] of this.written) {
      const checkpoint = checkpoints.get(partition) ?? -1;
      if (checkpoint >= written) continue;
      this.written.delete(partition);
      // Whatever batch comes first from checkpoint + 1 starts at or before `written` (that record exists).
      this.rewinds.set(partition, { to: checkpoint + 1, firstSeen: written });
      this.pending.set(partition, { to: checkpoint + 1, askedAt: now });
      rewinds.push({ partition, offset: checkpoint + 1 });
    }
    for (const [partition, asked] of this.pending) {
      if (rewinds.some((r) => r.partition === partition)) continue;
      // Still where the switch left it: nothing from the rewind has been applied.
      if ((checkpoints.get(partition) ?? -1) !== asked.to - 1) {
        this.pending.delete(partition);
        continue;
      }
      if (now - asked.askedAt < this.reaskMs) continue;
      asked.askedAt = now;
      rewinds.push({ partition, offset: asked.to });
    }
    return rewinds;
  }

  /** Call after a transaction that wrote `offset` as the partition's checkpoint has committed. */
  committed(partition: number, offset: number): void {
    this.written.set(partition, offset);
    this.rewinds.delete(partition);
    this.pending.delete(partition);
  }
}
