import { Partitioners, type Kafka, type PartitionMetadata } from 'kafkajs';
import type { LogPosition, TopicName } from '@holdfast/contracts';
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

/** The part of kafkajs's (internal) cluster this helper uses. */
interface Cluster {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  addTargetTopic(topic: string): Promise<void>;
  refreshMetadata(): Promise<void>;
  findTopicPartitionMetadata(topic: string): PartitionMetadata[];
  fetchTopicsOffset(
    topics: { topic: string; fromBeginning: boolean; partitions: { partition: number }[] }[],
  ): Promise<{ topic: string; partitions: { partition: number; offset: string }[] }[]>;
}

type CreateCluster = (opts: {
  allowAutoTopicCreation: boolean;
  isolationLevel: number;
  metadataMaxAge?: number;
}) => Cluster;

const READ_UNCOMMITTED = 0;
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
 * Why the high watermark and not the last stable offset (what kafkajs's `admin.fetchTopicOffsets`
 * returns): the transaction coordinator acknowledges a commit before it has written the commit markers
 * into the partitions, so for a moment after an ingest call has been answered its records may still
 * lie above the last stable offset. The high watermark has passed them before the commit was even
 * sent (acks=all), so it covers every acknowledged call; it may also cover records of transactions
 * still open, which a read_committed consumer passes as soon as they are decided.
 *
 * kafkajs's admin client asks read_committed and cannot be told otherwise, so this helper borrows the
 * client's own cluster factory (same brokers, TLS, SASL and retry settings) with read_uncommitted; it
 * fails at construction, not later, if a kafkajs upgrade removed that factory.
 *
 * @example
 * const positions = LogPositions.create(kafka, config.infra.topicPrefix);
 * await positions.ofKey('holdfast.commerce', accountId); // { topic: 'holdfast.commerce', partition: 2, offset: 18234 }
 * await positions.close();
 */
export class LogPositions implements LogPositionSource {
  private cluster: Promise<Cluster> | undefined;
  private readonly partitioner = Partitioners.DefaultPartitioner();

  private constructor(
    private readonly createCluster: CreateCluster,
    private readonly topicPrefix: string,
    private readonly timeoutMs: number,
  ) {}

  /**
   * @param timeoutMs how long one question may take before it fails with `LogPositionTimeoutError`
   *   (kafkajs retries a broker that does not answer for much longer than a caller can wait).
   */
  static create(kafka: Kafka, topicPrefix: string, { timeoutMs = 5_000 } = {}): LogPositions {
    const symbol = Object.getOwnPropertySymbols(kafka).find(
      (s) => s.description === 'private:Kafka:createCluster',
    );
    const factory = symbol ? (kafka as unknown as Record<symbol, unknown>)[symbol] : undefined;
    if (typeof factory !== 'function')
      throw new Error('kafkajs no longer exposes its cluster factory: LogPositions needs updating');
    return new LogPositions(factory as CreateCluster, topicPrefix, timeoutMs);
  }

  private connected(): Promise<Cluster> {
    return (this.cluster ??= (async () => {
      const c = this.createCluster({ allowAutoTopicCreation: false, isolationLevel: READ_UNCOMMITTED });
      await c.connect();
      return c;
    })().catch((err: unknown) => {
      this.cluster = undefined;
      throw err;
    }));
  }

  private async partitionsOf(cluster: Cluster, physical: string): Promise<number[]> {
    await cluster.addTargetTopic(physical);
    const meta = cluster.findTopicPartitionMetadata(physical);
    if (!meta.length) throw new Error(`topic ${physical} has no partitions`);
    return meta.map((p) => p.partitionId).sort((a, b) => a - b);
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
      const cluster = await this.connected();
      try {
        const all = await this.partitionsOf(cluster, physical);
        const wanted = pick ? [pick(all.length)] : all;
        const [answer] = await cluster.fetchTopicsOffset([
          { topic: physical, fromBeginning: false, partitions: wanted.map((partition) => ({ partition })) },
        ]);
        return wanted.map((partition) => {
          const offset = answer?.partitions.find((p) => p.partition === partition)?.offset;
          if (offset === undefined) throw new Error(`no offset for ${physical}[${partition}]`);
          return { topic, partition, offset: Number(offset) };
        });
      } catch (err) {
        // A moved leader or stale metadata: refresh and ask again; anything persistent is thrown.
        if (attempt >= ATTEMPTS) throw err;
        await cluster.refreshMetadata().catch(() => {});
        await new Promise((r) => setTimeout(r, 100 * attempt));
      }
    }
  }

  /** The partition kafkajs's default partitioner (and `memoKeyPartitioner`) picks for `key`. */
  partitionOf(topic: string, key: string, partitions: number): number {
    return this.partitioner({
      topic,
      partitionMetadata: Array.from({ length: partitions }, (_, i) => ({
        partitionId: i,
        leader: 0,
        partitionErrorCode: 0,
        replicas: [0],
        isr: [0],
      })),
      message: { key, value: null },
    });
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
    const c = this.cluster;
    this.cluster = undefined;
    // A connection still being attempted (the broker away) is not waited for beyond a second.
    const cluster = c
      ? await Promise.race([
          c.catch(() => undefined),
          new Promise<undefined>((r) => setTimeout(() => r(undefined), 1_000).unref()),
        ])
      : undefined;
    await cluster?.disconnect();
  }
}
