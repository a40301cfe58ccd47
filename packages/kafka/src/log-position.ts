import type { LogPosition, TopicName } from '@holdfast/contracts';
import { partitionOfKey } from './partitioner.js';
import type { KafkaAdmin, KafkaClient } from './ports.js';
import { topicName } from './topics.js';

/**
 * The structural port a service uses to learn how far the log reaches: the high watermark of a
 * partition (the next offset to be written; every acknowledged record lies below it).
 */
export interface LogPositionSource {
  /** The position of the partition that records keyed by `key` are appended to. */
  ofKey(topic: TopicName, key: string): Promise<LogPosition>;
  /** The position of every partition of `topic`. */
  ofAll(topic: TopicName): Promise<LogPosition[]>;
  /** For each key, the position of its partition, read in one request (`ofKey` for many keys). */
  ofKeys(topic: TopicName, keys: readonly string[]): Promise<LogPosition[]>;
}

const ATTEMPTS = 3;

/** Thrown when the log's position could not be read in time (the broker is away). */
export class LogPositionTimeoutError extends Error {
  override readonly name = 'LogPositionTimeoutError';
  readonly isRetriable = true;
  constructor(topic: string, ms: number) {
    super(`the position of ${topic} could not be read within ${ms} ms`);
  }
}

/**
 * The high watermarks of the event log, asked with isolation level read_uncommitted.
 *
 * Why the high watermark and not the last stable offset (what a read_committed offset request
 * returns): the transaction coordinator acknowledges a commit before it has written the commit
 * markers into the partitions, so for a moment after an ingest call has been answered its records may
 * still lie above the last stable offset. The high watermark has passed them before the commit was
 * even sent (acks=all), so it covers every acknowledged call; it may also cover records of
 * transactions still open, which a read_committed consumer passes as soon as they are decided.
 *
 * @example
 * const positions = LogPositions.create(kafka, config.infra.topicPrefix);
 * await positions.ofKey('holdfast.commerce', accountId); // { topic: 'holdfast.commerce', partition: 2, offset: 18234 }
 * await positions.close();
 */
export class LogPositions implements LogPositionSource {
  private admin: Promise<KafkaAdmin> | undefined;

  private constructor(
    private readonly kafka: KafkaClient,
    private readonly topicPrefix: string,
    private readonly timeoutMs: number,
  ) {}

  /**
   * @param timeoutMs how long one question may take before it fails with `LogPositionTimeoutError`
   *   (the clients retry a broker that does not answer for much longer than a caller can wait).
   */
  static create(kafka: KafkaClient, topicPrefix: string, { timeoutMs = 5_000 } = {}): LogPositions {
    return new LogPositions(kafka, topicPrefix, timeoutMs);
  }

  private connected(): Promise<KafkaAdmin> {
    return (this.admin ??= (async () => {
      const a = this.kafka.admin();
      await a.connect();
      return a;
    })().catch((err: unknown) => {
      this.admin = undefined;
      throw err;
    }));
  }

  private async watermarks(topic: TopicName, pick?: (count: number) => number): Promise<LogPosition[]> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new LogPositionTimeoutError(topic, this.timeoutMs)), this.timeoutMs);
    });
    try {
      return await Promise.race([this.ask(topic, pick), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async ask(topic: TopicName, pick?: (count: number) => number): Promise<LogPosition[]> {
    const physical = topicName(this.topicPrefix, topic);
    for (let attempt = 1; ; attempt++) {
      const admin = await this.connected();
      try {
        const all = await admin.topicOffsets(physical, 'uncommitted');
        if (!all.length) throw new Error(`topic ${physical} has no partitions`);
        const wanted = pick ? [pick(all.length)] : all.map((p) => p.partition);
        return wanted.map((partition) => {
          const offset = all.find((p) => p.partition === partition)?.high;
          if (offset === undefined) throw new Error(`no offset for ${physical}[${partition}]`);
          return { topic, partition, offset: Number(offset) };
        });
      } catch (err) {
        // A moved leader or stale metadata: ask again; anything persistent is thrown.
        if (attempt >= ATTEMPTS) throw err;
        await new Promise((r) => setTimeout(r, 100 * attempt));
      }
    }
  }

  /** The partition the producers (Java-compatible murmur2) pick for `key`. */
  partitionOf(_topic: string, key: string, partitions: number): number {
    return partitionOfKey(key, partitions);
  }

  async ofKey(topic: TopicName, key: string): Promise<LogPosition> {
    const physical = topicName(this.topicPrefix, topic);
    const [position] = await this.watermarks(topic, (count) => this.partitionOf(physical, key, count));
    return position!;
  }

  ofAll(topic: TopicName): Promise<LogPosition[]> {
    return this.watermarks(topic);
  }

  async ofKeys(topic: TopicName, keys: readonly string[]): Promise<LogPosition[]> {
    if (!keys.length) return [];
    const all = await this.watermarks(topic);
    const physical = topicName(this.topicPrefix, topic);
    return keys.map((key) => all[this.partitionOf(physical, key, all.length)]!);
  }

  async close(): Promise<void> {
    const a = this.admin;
    this.admin = undefined;
    // A connection still being attempted (the broker away) is not waited for beyond a second.
    const admin = a
      ? await Promise.race([
          a.catch(() => undefined),
          new Promise<undefined>((r) => setTimeout(() => r(undefined), 1_000).unref()),
        ])
      : undefined;
    await admin?.disconnect();
  }
}
