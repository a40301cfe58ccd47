import {
  Kafka,
  logLevel,
  type Admin,
  type IHeaders,
  type KafkaConfig,
  type LogEntry,
  type Producer,
} from 'kafkajs';
import type { KafkaSecurityConfig, Logger } from '@holdfast/platform';
import { ignoreKafkajsNegativeTimeoutWarning } from './kafkajs-timeout-warning.js';
import { memoPartitionOf } from './partitioner.js';
import { partitionCalls } from './partition-calls.js';
import type {
  ConsumedRecord,
  GroupConsumer,
  GroupConsumerEvents,
  GroupConsumerOptions,
  KafkaAdmin,
  KafkaClient,
  OutgoingRecord,
  PartitionOffsets,
} from './ports.js';

/** kafkajs's `ssl` and `sasl` options for a security config (nothing: plaintext, the local default). */
export function kafkaSecurityOptions(security: KafkaSecurityConfig = {}): Pick<KafkaConfig, 'ssl' | 'sasl'> {
  const { tls, sasl } = security;
  return {
    ...(tls && {
      // Certificates are always verified: a broker that cannot prove its name gets no password.
      ssl: {
        rejectUnauthorized: true,
        ...(tls.ca !== undefined && { ca: [tls.ca] }),
        ...(tls.cert !== undefined && { cert: tls.cert }),
        ...(tls.key !== undefined && { key: tls.key }),
        ...(tls.servername !== undefined && { servername: tls.servername }),
      },
    }),
    ...(sasl && { sasl: { mechanism: sasl.mechanism, username: sasl.username, password: sasl.password } }),
  } as Pick<KafkaConfig, 'ssl' | 'sasl'>;
}

/** A kafkajs client whose own logs go through our logger (errors and warnings only). */
function kafkajs(
  brokers: readonly string[],
  clientId: string,
  logger: Logger,
  security?: KafkaSecurityConfig,
) {
  ignoreKafkajsNegativeTimeoutWarning();
  return new Kafka({
    clientId,
    brokers: [...brokers],
    ...kafkaSecurityOptions(security),
    logLevel: logLevel.WARN,
    retry: { retries: 8, initialRetryTime: 200, maxRetryTime: 5_000 },
    logCreator:
      () =>
      ({ level, namespace, log }: LogEntry) => {
        const { message, error, broker } = log as { message: string; error?: unknown; broker?: unknown };
        // kafkajs warns about the default partitioner once per process: noise, not a problem.
        if (message.includes('KafkaJS v2.0.0 switched default partitioner')) return;
        // Our producers are transactional: a send that runs out of retries aborts its transaction,
        // so nothing half-written becomes visible; the warning does not apply.
        if (message.includes('Limiting retries for the idempotent producer')) return;
        const ctx = { namespace, message, error, broker };
        if (level <= logLevel.ERROR) logger.error('kafka_client', ctx);
        else logger.warn('kafka_client', ctx);
      },
  });
}

/**
 * The partitions one send call targets, by topic, noted by the partitioner while kafkajs groups the
 * call's records (see `WrittenCheck`).
 */
type Targets = Map<string, Set<number>>;

/**
 * The Java-compatible partition of every keyed record, memoised (see `memoPartitionOf`). While
 * `targets()` returns a map, every partition chosen is noted in it; every topic's partition count
 * kafkajs knows is noted in `counts`.
 */
const createPartitioner =
  (
    targets: () => Targets | undefined,
    counts: Map<string, number>,
    partitionOf: (key: string, partitions: number) => number,
  ) =>
  () => {
    const choose = (message: { partition?: number | null; key?: Buffer | string | null }, n: number) => {
      if (message.partition !== null && message.partition !== undefined) return message.partition;
      const key = message.key;
      if (typeof key === 'string') return partitionOf(key, n);
      if (key) return partitionOf(key.toString('utf8'), n);
      return 0;
    };
    return ({
      topic,
      message,
      partitionMetadata,
    }: {
      topic: string;
      message: { partition?: number | null; key?: Buffer | string | null };
      partitionMetadata: unknown[];
    }) => {
      if (partitionMetadata.length > 0) counts.set(topic, partitionMetadata.length);
      const partition = choose(message, partitionMetadata.length);
      const noted = targets();
      if (noted) {
        let set = noted.get(topic);
        if (!set) noted.set(topic, (set = new Set()));
        set.add(partition);
      }
      return partition;
    };
  };

/**
 * A send kafkajs reported done although some partitions of it were never written. Retriable: the
 * transaction is aborted (its producer fenced) and the whole append tried again.
 */
export class UnwrittenPartitionsError extends Error {
  readonly isRetriable = true;
  constructor(readonly partitions: readonly string[]) {
    super(`kafkajs reported a send done without writing to ${partitions.join(', ')}`);
    this.name = 'UnwrittenPartitionsError';
  }
}

/**
 * Checks that kafkajs wrote every partition a send call targeted. kafkajs 2.2.4 loses records when a
 * partition leader dies during a send that spans several brokers (`producer/sendMessages.js`): the
 * answers already received are kept per broker across retries, and the retry sends only to brokers
 * without an answer. A partition whose leadership moved from the dead broker to one that already
 * answered is never sent again, and the call resolves as if all were written (kafkajs issue #1303,
 * PR #1798). In a transaction the commit then succeeds with the partition's records missing: the
 * acknowledged batch lost in the cluster run (docs/reliability.md). The call's answer lists every
 * partition that was written (any error fails the call), so a partition missing from it was not.
 */
export class WrittenCheck {
  private targets: Targets | undefined;
  /** Partitions per topic, as kafkajs's metadata last had them (see `sendPerPartition`). */
  readonly partitionCounts = new Map<string, number>();
  readonly partitionOf = memoPartitionOf();
  readonly partitioner = createPartitioner(() => this.targets, this.partitionCounts, this.partitionOf);

  constructor(private readonly logger: Logger) {}

  /** Runs one send call (a producer runs one at a time) and throws if a partition was skipped. */
  async send(call: () => Promise<{ topicName: string; partition: number }[]>): Promise<void> {
    const targets: Targets = new Map();
    this.targets = targets;
    let answer: { topicName: string; partition: number }[];
    try {
      answer = await call();
    } finally {
      this.targets = undefined;
    }
    const written = new Set(answer.map((r) => `${r.topicName}/${r.partition}`));
    const missing: string[] = [];
    for (const [topic, partitions] of targets)
      for (const p of partitions) if (!written.has(`${topic}/${p}`)) missing.push(`${topic}/${p}`);
    if (!missing.length) return;
    this.logger.warn('kafka_send_incomplete', { partitions: missing });
    throw new UnwrittenPartitionsError(missing);
  }
}

/**
 * Records per produce call. kafkajs groups a call's messages by partition with an array spread per
 * message (quadratic: 12.5 M element copies for 5,000 records of one account, ~11 % of the gateway's
 * CPU), so larger batches go in slices.
 */
const SEND_SLICE = 1000;

const headersOf = (r: OutgoingRecord): { headers?: IHeaders } =>
  r.headers ? { headers: { ...r.headers } } : {};

function topicMessages(records: readonly OutgoingRecord[]) {
  const byTopic = new Map<string, { key: string; value: Buffer; headers?: IHeaders }[]>();
  for (const r of records) {
    let list = byTopic.get(r.topic);
    if (!list) byTopic.set(r.topic, (list = []));
    list.push({ key: r.key, value: r.value, ...headersOf(r) });
  }
  return byTopic;
}

export type SendCall = (
  topicMessages: {
    topic: string;
    messages: { key: string; value: Buffer; partition?: number; headers?: IHeaders }[];
  }[],
) => Promise<{ topicName: string; partition: number }[]>;

/**
 * Sends `records` one partition per kafkajs call, in order, each call checked by `check`. kafkajs
 * 2.2.4 sends the partitions of one call to their leaders in parallel (`producer/sendMessages.js`);
 * when one request fails, its `Promise.all` rejects and the retry starts while the others may still
 * be in flight, and it sends again to every broker that had not answered yet. That second request
 * waits for the first (kafkajs's lock per broker) and takes its sequence numbers only then, after
 * the first was written and advanced them: the broker sees the next sequence, not a retry, and
 * stores the records twice. In a transaction (same producer id and epoch) the commit makes both
 * copies visible: tests/transaction-leader-failover.int.test.ts saw a partition's 100 records twice
 * (sequences 0 and 100) when one broker answered "does not host this topic-partition" (a topic just
 * created) while the other broker's produce was slow (docs/reliability.md); a CONCURRENT_TRANSACTIONS
 * answer to AddPartitionsToTxn does the same. A call of one partition makes one request at a
 * time, so a retry follows a request that has ended (its sequence rolled back if it failed), and
 * it cannot leave a partition unwritten either (#1303). A topic kafkajs has no partition count for
 * yet gets its first record alone (kafkajs's partitioner places it and notes the count).
 */
export async function sendPerPartition(
  records: readonly OutgoingRecord[],
  check: WrittenCheck,
  call: SendCall,
): Promise<void> {
  const message = (r: OutgoingRecord, partition?: number) => ({
    key: r.key,
    value: r.value,
    ...(partition === undefined ? {} : { partition }),
    ...headersOf(r),
  });
  let rest = records;
  for (const r of records) {
    if (check.partitionCounts.has(r.topic)) continue;
    await check.send(() => call([{ topic: r.topic, messages: [message(r)] }]));
    rest = rest.filter((x) => x !== r);
  }
  const calls = partitionCalls(
    rest,
    (topic) => {
      const n = check.partitionCounts.get(topic);
      if (n === undefined) throw new Error(`kafkajs has no partition count for ${topic}`);
      return n;
    },
    check.partitionOf,
    SEND_SLICE,
  );
  for (const { topic, partition, records: list } of calls)
    await check.send(() => call([{ topic, messages: list.map((r) => message(r, partition)) }]));
}

/** The part of kafkajs's (internal) cluster the read_uncommitted offsets need. */
interface Cluster {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  addTargetTopic(topic: string): Promise<void>;
  refreshMetadata(): Promise<void>;
  findTopicPartitionMetadata(topic: string): { partitionId: number }[];
  fetchTopicsOffset(
    topics: { topic: string; fromBeginning: boolean; partitions: { partition: number }[] }[],
  ): Promise<{ topic: string; partitions: { partition: number; offset: string }[] }[]>;
}
type CreateCluster = (opts: { allowAutoTopicCreation: boolean; isolationLevel: number }) => Cluster;

/**
 * kafkajs's admin client asks read_committed and cannot be told otherwise, so the high watermarks
 * (read_uncommitted) come from the client's own cluster factory (same brokers, TLS, SASL and retry
 * settings); it fails at construction, not later, if a kafkajs upgrade removed that factory.
 */
function clusterFactory(kafka: Kafka): CreateCluster {
  const symbol = Object.getOwnPropertySymbols(kafka).find(
    (s) => s.description === 'private:Kafka:createCluster',
  );
  const factory = symbol ? (kafka as unknown as Record<symbol, unknown>)[symbol] : undefined;
  if (typeof factory !== 'function')
    throw new Error('kafkajs no longer exposes its cluster factory: the kafkajs adapter needs updating');
  return factory as CreateCluster;
}

function adminPort(kafka: Kafka, createCluster: CreateCluster, retries?: number): KafkaAdmin {
  const admin: Admin = kafka.admin(retries === undefined ? {} : { retry: { retries } });
  let cluster: Cluster | undefined;
  const uncommitted = async (topic: string): Promise<PartitionOffsets[]> => {
    if (!cluster) {
      const c = createCluster({ allowAutoTopicCreation: false, isolationLevel: 0 });
      await c.connect();
      cluster = c;
    }
    await cluster.addTargetTopic(topic);
    const partitions = cluster.findTopicPartitionMetadata(topic).map((p) => ({ partition: p.partitionId }));
    if (!partitions.length) throw new Error(`topic ${topic} has no partitions`);
    const [answer] = await cluster.fetchTopicsOffset([{ topic, fromBeginning: false, partitions }]);
    return (answer?.partitions ?? [])
      .map((p) => ({ partition: p.partition, low: '0', high: String(p.offset) }))
      .sort((a, b) => a.partition - b.partition);
  };
  return {
    connect: () => admin.connect(),
    disconnect: async () => {
      const c = cluster;
      cluster = undefined;
      await Promise.all([admin.disconnect(), c?.disconnect().catch(() => {})]);
    },
    listTopics: () => admin.listTopics(),
    createTopics: async (topics) => {
      await admin.createTopics({
        waitForLeaders: false,
        topics: topics.map((t) => ({
          topic: t.topic,
          numPartitions: t.partitions,
          replicationFactor: t.replicationFactor,
          configEntries: Object.entries(t.configs).map(([name, value]) => ({ name, value })),
        })),
      });
      // kafkajs's own wait for leaders retries only LEADER_NOT_AVAILABLE, but a broker that has just
      // started and created the topic may still answer UNKNOWN_TOPIC_OR_PARTITION for it (seen on a
      // fresh clone's CI): wait here, retrying every retriable answer, for at most 30 s.
      const names = topics.map((t) => t.topic);
      const deadline = Date.now() + 30_000;
      for (;;) {
        try {
          const { topics: meta } = await admin.fetchTopicMetadata({ topics: names });
          const led = meta.every((t) => t.partitions.length > 0 && t.partitions.every((p) => p.leader >= 0));
          if (meta.length === names.length && led) return;
        } catch (err) {
          if (!(err as { retriable?: boolean }).retriable || Date.now() > deadline) throw err;
        }
        if (Date.now() > deadline) throw new Error(`topics ${names.join(', ')}: no leader after 30 s`);
        await new Promise((r) => setTimeout(r, 200));
      }
    },
    topicPartitions: async (topics) => {
      const { topics: meta } = await admin.fetchTopicMetadata({ topics: [...topics] });
      return new Map(meta.map((t) => [t.name, t.partitions.map((p) => p.partitionId).sort((a, b) => a - b)]));
    },
    describeCluster: async () => {
      await admin.describeCluster();
    },
    topicOffsets: async (topic, isolation = 'committed') => {
      if (isolation === 'uncommitted') {
        try {
          return await uncommitted(topic);
        } catch (err) {
          // A moved leader or stale metadata: the next question starts from fresh metadata.
          await cluster?.refreshMetadata().catch(() => {});
          throw err;
        }
      }
      const offsets = await admin.fetchTopicOffsets(topic);
      return offsets
        .map((o) => ({ partition: o.partition, low: o.low, high: o.high }))
        .sort((a, b) => a.partition - b.partition);
    },
    groupOffsets: async (groupId, topics) => {
      const committed = await admin.fetchOffsets({ groupId, topics: [...topics] });
      return committed.flatMap((t) =>
        t.partitions.map((p) => ({ topic: t.topic, partition: p.partition, offset: p.offset })),
      );
    },
    deleteTopics: async (topics) => {
      await admin.deleteTopics({ topics: [...topics] });
    },
    listGroups: async () => (await admin.listGroups()).groups.map((g) => g.groupId),
    deleteGroups: async (ids) => {
      await admin.deleteGroups([...ids]);
    },
  };
}

function groupConsumerPort(kafka: Kafka, opts: GroupConsumerOptions): GroupConsumer {
  // A consumer stopped (e.g. retired by the stall watchdog, which starts a fresh one) must not
  // restart itself after a late crash and join the group beside its successor.
  let stopped = false;
  const consumer = kafka.consumer({
    groupId: opts.groupId,
    readUncommitted: false,
    maxBytesPerPartition: 16 * 1024 * 1024,
    maxBytes: 64 * 1024 * 1024,
    maxWaitTimeInMs: 100,
    sessionTimeout: opts.sessionTimeoutMs,
    heartbeatInterval: opts.heartbeatIntervalMs,
    retry: { retries: 10, restartOnFailure: () => Promise.resolve(!stopped) },
  });
  const { CRASH, GROUP_JOIN, FETCH_START, REBALANCING, STOP, START_BATCH_PROCESS, END_BATCH_PROCESS } =
    consumer.events;
  return {
    on<E extends keyof GroupConsumerEvents>(event: E, listener: GroupConsumerEvents[E]) {
      const l = listener as (...args: unknown[]) => void;
      switch (event) {
        case 'join':
          consumer.on(GROUP_JOIN, () => l());
          break;
        case 'leave':
          consumer.on(REBALANCING, () => l());
          consumer.on(STOP, () => l());
          break;
        case 'fetch':
          consumer.on(FETCH_START, () => l());
          break;
        case 'crash':
          consumer.on(CRASH, (e) => {
            const { error, restart } = e.payload as { error: Error; restart: boolean };
            l(error, restart);
          });
          break;
        case 'batchStart':
          consumer.on(START_BATCH_PROCESS, ({ payload }) => l(payload.topic, payload.partition));
          break;
        case 'batchEnd':
          consumer.on(END_BATCH_PROCESS, ({ payload }) =>
            l(payload.topic, payload.partition, payload.lastOffset),
          );
          break;
      }
    },
    async run(eachBatch) {
      try {
        await consumer.connect();
        await consumer.subscribe({ topics: [...opts.topics], fromBeginning: opts.fromBeginning });
      } catch (err) {
        await consumer.disconnect().catch(() => {});
        throw err;
      }
      await consumer.run({
        eachBatchAutoResolve: false,
        autoCommit: true,
        autoCommitInterval: 1000,
        eachBatch: async ({
          batch,
          resolveOffset,
          heartbeat,
          isRunning,
          isStale,
          commitOffsetsIfNecessary,
        }) => {
          const records = batch.messages.map((m): ConsumedRecord => ({
            topic: batch.topic,
            partition: batch.partition,
            offset: m.offset,
            key: m.key,
            value: m.value,
            timestamp: m.timestamp,
            ...(m.headers && Object.keys(m.headers).length
              ? { headers: m.headers as Record<string, Buffer | undefined> }
              : {}),
          }));
          await eachBatch(
            { topic: batch.topic, partition: batch.partition, records, highWatermark: batch.highWatermark },
            {
              resolveOffset,
              commitResolved: () => commitOffsetsIfNecessary(),
              heartbeat,
              isRunning,
              isStale,
            },
          );
        },
      });
    },
    seek: (topic, partition, offset) => consumer.seek({ topic, partition, offset }),
    stop: () => {
      stopped = true;
      return consumer.disconnect();
    },
  };
}

async function transactionalProducer(
  kafka: Kafka,
  logger: Logger,
  { transactionalId, transactionTimeoutMs }: { transactionalId: string; transactionTimeoutMs: number },
) {
  const check = new WrittenCheck(logger);
  const producer: Producer = kafka.producer({
    transactionalId,
    idempotent: true,
    maxInFlightRequests: 1,
    transactionTimeout: transactionTimeoutMs,
    allowAutoTopicCreation: false,
    createPartitioner: check.partitioner,
  });
  await producer.connect();
  return {
    transaction: async () => {
      const tx = await producer.transaction();
      return {
        send: (records: readonly OutgoingRecord[], timeout: number) =>
          // A call kafkajs did not fully write fails the transaction (see WrittenCheck).
          sendPerPartition(records, check, (topicMessages) => tx.sendBatch({ topicMessages, timeout })),
        commit: () => tx.commit(),
        abort: () => tx.abort(),
      };
    },
    close: () => producer.disconnect(),
  };
}

async function idempotentProducer(kafka: Kafka, logger: Logger) {
  const check = new WrittenCheck(logger);
  const producer = kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    allowAutoTopicCreation: false,
    createPartitioner: check.partitioner,
  });
  await producer.connect();
  return {
    // kafkajs encodes each partition's messages of one send call as ONE RecordBatch
    // (`producer/sendMessages.js`) and never splits them across requests: the call stays whole (its
    // callers append to one partition, so one broker, which cannot hit the race sendPerPartition
    // avoids). A call that was not fully written fails (see WrittenCheck).
    send: async (records: readonly OutgoingRecord[], timeout: number) => {
      await check.send(() =>
        producer.sendBatch({
          topicMessages: [...topicMessages(records)].map(([topic, messages]) => ({ topic, messages })),
          acks: -1,
          timeout,
        }),
      );
    },
    close: () => producer.disconnect(),
  };
}

/**
 * The kafkajs adapter of the ports (HOLDFAST_KAFKA_CLIENT=kafkajs).
 *
 * @example
 * const kafka = kafkajsClient(['127.0.0.1:9092'], 'gateway', logger);
 */
export function kafkajsClient(
  brokers: readonly string[],
  clientId: string,
  logger: Logger,
  security?: KafkaSecurityConfig,
): KafkaClient {
  const kafka = kafkajs(brokers, clientId, logger, security);
  const createCluster = clusterFactory(kafka);
  return {
    kind: 'kafkajs',
    transactionalProducer: (o) => transactionalProducer(kafka, logger, o),
    idempotentProducer: () => idempotentProducer(kafka, logger),
    admin: (o) => adminPort(kafka, createCluster, o?.retries),
    groupConsumer: (o) => groupConsumerPort(kafka, o),
  };
}
