import type { BatchOutcome, GroupConsumer, KafkaClient } from '@holdfast/kafka';
import type { RebuildProgress } from '@holdfast/read-models';

export type { RebuildProgress };

type Targets = ReadonlyMap<string, number>;

/**
 * Follows a rebuild's consumer: a partition's position is the last offset of its latest batch whose
 * chunks all committed (commit markers included, which the handler never sees); a batch the runner
 * rewound does not count. The consumer reports `batchEnd` after the handler returned, i.e. after the
 * read-model transaction committed, so "position ≥ high watermark" means "in the database".
 */
export class RebuildTracker {
  private readonly positions = new Map<string, number>();
  private readonly outcomes = new Map<string, BatchOutcome['kind']>();
  private readonly started = Date.now();

  constructor(
    private readonly kafka: KafkaClient,
    private readonly topics: readonly string[],
  ) {}

  /** Pass to startProjector as `onOutcome`. */
  readonly onOutcome = (topic: string, partition: number, outcome: BatchOutcome): void => {
    this.outcomes.set(`${topic}:${partition}`, outcome.kind);
  };

  attach(consumer: GroupConsumer): void {
    consumer.on('batchStart', (topic, partition) => this.outcomes.set(`${topic}:${partition}`, 'applied'));
    consumer.on('batchEnd', (topic, partition, lastOffset) => {
      const tp = `${topic}:${partition}`;
      if (this.outcomes.get(tp) === 'applied')
        this.positions.set(tp, Math.max(this.positions.get(tp) ?? 0, Number(lastOffset) + 1));
    });
  }

  /** The current high watermarks of every partition of the rebuild's topics. */
  async highWatermarks(): Promise<Targets> {
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      const result = new Map<string, number>();
      for (const topic of this.topics)
        for (const o of await admin.topicOffsets(topic))
          result.set(`${topic}:${o.partition}`, Number(o.high));
      return result;
    } finally {
      await admin.disconnect();
    }
  }

  progress(phase: RebuildProgress['phase'], targets: Targets): RebuildProgress {
    let consumed = 0;
    let target = 0;
    let done = 0;
    for (const [tp, high] of targets) {
      const at = Math.min(this.positions.get(tp) ?? 0, high);
      consumed += at;
      target += high;
      if (at >= high) done++;
    }
    return {
      phase,
      consumed,
      target,
      partitionsDone: done,
      partitions: targets.size,
      elapsedMs: Date.now() - this.started,
    };
  }

  /** Records between the positions and `targets`. */
  remaining(targets: Targets): number {
    const p = this.progress('catch-up', targets);
    return p.target - p.consumed;
  }

  /** Resolves when every partition reached `targets`; rejects if the consumer crashes. */
  async waitFor(
    phase: RebuildProgress['phase'],
    targets: Targets,
    crashed: Promise<Error>,
    onProgress?: (p: RebuildProgress) => void,
    everyMs = 1000,
  ): Promise<void> {
    let lastReport = 0;
    for (;;) {
      const p = this.progress(phase, targets);
      if (Date.now() - lastReport >= everyMs || p.partitionsDone === p.partitions) {
        onProgress?.(p);
        lastReport = Date.now();
      }
      if (p.partitionsDone === p.partitions) return;
      const err = await Promise.race([
        crashed,
        new Promise<undefined>((r) => setTimeout(() => r(undefined), 100)),
      ]);
      if (err) throw err;
    }
  }
}
