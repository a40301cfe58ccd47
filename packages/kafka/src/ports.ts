/**
 * The project's own Kafka ports: the few producer, consumer and admin operations Holdfast uses,
 * so that no service or package outside `@holdfast/kafka` sees a client library's types. One adapter
 * implements them: `platformatic-adapter.ts` (@platformatic/kafka; docs/performance.md, "Kafka client").
 */

/** Record headers (e.g. a request id): UTF-8 text or bytes. */
export type RecordHeaders = Readonly<Record<string, string | Buffer>>;

/** One record to append: topic (physical name), key (account id), encoded value. */
export interface OutgoingRecord {
  readonly topic: string;
  readonly key: string;
  readonly value: Buffer;
  readonly headers?: RecordHeaders;
}

/** A record as consumed: physical topic, partition, offset (string: int64), raw key and value. */
export interface ConsumedRecord {
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly timestamp: string;
  readonly headers?: Readonly<Record<string, Buffer | undefined>>;
}

/** One open Kafka transaction of a transactional producer. */
export interface ProducerTransaction {
  /** Sends records inside the transaction (several calls may share one transaction). */
  send(records: readonly OutgoingRecord[], timeoutMs: number): Promise<void>;
  commit(): Promise<void>;
  abort(): Promise<void>;
}

/** A producer with a transactional id: one open transaction at a time. */
export interface TransactionalProducer {
  transaction(): Promise<ProducerTransaction>;
  close(): Promise<void>;
}

/** An idempotent, non-transactional producer (acks=all): each call is one produce request. */
export interface IdempotentProducer {
  /** Sends records; records of one partition go as ONE record batch (see IdempotentBatchAppender). */
  send(records: readonly OutgoingRecord[], timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

/** A topic to create, with its broker-side configuration. */
export interface TopicSpec {
  readonly topic: string;
  readonly partitions: number;
  readonly replicationFactor: number;
  readonly configs: Readonly<Record<string, string>>;
}

/** Offsets of one partition: low and high (string: int64). */
export interface PartitionOffsets {
  readonly partition: number;
  readonly low: string;
  readonly high: string;
}

/** A committed offset of a consumer group (−1: none). */
export interface CommittedOffset {
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
}

/**
 * The admin operations Holdfast uses. `connect` before use, `disconnect` after; `retries: 0` clients
 * (probes, lag) answer within their caller's timeout rather than retrying on their own.
 */
export interface KafkaAdmin {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  listTopics(): Promise<string[]>;
  /** Creates the topics and waits until every partition has a leader. */
  createTopics(topics: readonly TopicSpec[]): Promise<void>;
  /** The partition ids of each topic; fails (UNKNOWN_TOPIC_OR_PARTITION) if one is missing. */
  topicPartitions(topics: readonly string[]): Promise<Map<string, number[]>>;
  /** Asks the cluster for its brokers (a readiness probe). */
  describeCluster(): Promise<void>;
  /**
   * Low and high offsets of every partition of `topic`. `committed` (default): the last stable
   * offset as high (what a read_committed consumer can reach); `uncommitted`: the high watermark.
   */
  topicOffsets(topic: string, isolation?: 'committed' | 'uncommitted'): Promise<PartitionOffsets[]>;
  /** The committed offsets of `groupId` on `topics` (−1 where nothing is committed). */
  groupOffsets(groupId: string, topics: readonly string[]): Promise<CommittedOffset[]>;
  deleteTopics(topics: readonly string[]): Promise<void>;
  listGroups(): Promise<string[]>;
  deleteGroups(groupIds: readonly string[]): Promise<void>;
}

/** One fetched batch of one partition, as a group consumer hands it over. */
export interface FetchedBatch {
  readonly topic: string;
  readonly partition: number;
  readonly records: readonly ConsumedRecord[];
  /** The partition's high watermark when fetched (string: int64), where the client knows it. */
  readonly highWatermark: string | undefined;
}

/** What a batch handler may do while it works on a batch. */
export interface BatchControl {
  /** Marks `offset` (and everything before it) processed: the next commit stores `offset + 1`. */
  resolveOffset(offset: string): void;
  /** Commits the resolved offsets now (they are also committed within a second on their own). */
  commitResolved(): Promise<void>;
  heartbeat(): Promise<void>;
  /** False once the consumer is stopping. */
  isRunning(): boolean;
  /** True once the partition may have been reassigned (a rebalance): stop working on the batch. */
  isStale(): boolean;
}

export interface GroupConsumerOptions {
  readonly groupId: string;
  readonly topics: readonly string[];
  /** Where a group without a committed offset starts. */
  readonly fromBeginning: boolean;
  readonly sessionTimeoutMs: number;
  readonly heartbeatIntervalMs: number;
}

/** What a group consumer reports (names are ours, mapped by each adapter). */
export interface GroupConsumerEvents {
  /** The group assigned this member its partitions. */
  join: () => void;
  /** The member left (stop, rebalance in progress). */
  leave: () => void;
  /**
   * The client is alive: it fetched (an idle consumer keeps fetching: a long poll that returns
   * nothing) or, where the client reports no fetch (nothing assigned, its buffer full), heartbeated.
   * The stall watchdog counts from the last one.
   */
  fetch: () => void;
  /** The client failed; `restart`: it restarts on its own. */
  crash: (error: Error, restart: boolean) => void;
  /** A batch handler is about to run. */
  batchStart: (topic: string, partition: number) => void;
  /** A batch handler returned; `lastOffset` is the batch's last offset. */
  batchEnd: (topic: string, partition: number, lastOffset: string) => void;
}

/**
 * A member of a consumer group reading with isolation level read_committed, with manual offset
 * resolution: nothing is committed that the handler did not resolve.
 */
export interface GroupConsumer {
  /** Joins the group and hands every fetched batch to `eachBatch`, one partition at a time. */
  run(eachBatch: (batch: FetchedBatch, control: BatchControl) => Promise<void>): Promise<void>;
  /** Reads `partition` again from `offset` (the batch in progress is abandoned). */
  seek(topic: string, partition: number, offset: string): void;
  on<E extends keyof GroupConsumerEvents>(event: E, listener: GroupConsumerEvents[E]): void;
  /** Leaves the group and closes the connections. A stopped consumer never restarts on its own. */
  stop(): Promise<void>;
}

/**
 * A Kafka client behind the ports: the factory of producers, consumers and admin clients of one
 * cluster, with its security settings and logging applied.
 *
 * @example
 * const kafka = createKafka(config.kafkaBrokers, 'gateway', logger, config.kafkaSecurity);
 * const admin = kafka.admin();
 * await admin.connect();
 */
export interface KafkaClient {
  transactionalProducer(opts: {
    readonly transactionalId: string;
    readonly transactionTimeoutMs: number;
  }): Promise<TransactionalProducer>;
  idempotentProducer(): Promise<IdempotentProducer>;
  admin(opts?: { readonly retries?: number }): KafkaAdmin;
  groupConsumer(opts: GroupConsumerOptions): GroupConsumer;
}
