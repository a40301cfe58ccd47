import {
  Admin,
  Consumer,
  FetchIsolationLevels,
  ListOffsetTimestamps,
  ProduceAcks,
  Producer,
  type BaseOptions,
  type Message,
  type MessagesStream,
  type MessageToProduce,
} from '@platformatic/kafka';
import {
  backoffDelay,
  classifyError,
  describeFailure,
  sleep,
  type KafkaSecurityConfig,
  type Logger,
} from '@holdfast/platform';
import { waitForLeaders } from './leaders.js';
import { memoPartitionOf } from './partitioner.js';
import type {
  BatchControl,
  ConsumedRecord,
  FetchedBatch,
  GroupConsumer,
  GroupConsumerEvents,
  GroupConsumerOptions,
  KafkaAdmin,
  KafkaClient,
  OutgoingRecord,
  PartitionOffsets,
} from './ports.js';

type Connection = Pick<
  BaseOptions,
  'clientId' | 'bootstrapBrokers' | 'tls' | 'sasl' | 'retries' | 'retryDelay'
>;

function connection(
  brokers: readonly string[],
  clientId: string,
  security: KafkaSecurityConfig = {},
  retries = 8,
): Connection {
  const { tls, sasl } = security;
  return {
    clientId,
    bootstrapBrokers: [...brokers],
    retries,
    retryDelay: 200,
    ...(tls && {
      // Certificates are always verified: a broker that cannot prove its name gets no password.
      tls: {
        rejectUnauthorized: true,
        ...(tls.ca !== undefined && { ca: [tls.ca] }),
        ...(tls.cert !== undefined && { cert: tls.cert }),
        ...(tls.key !== undefined && { key: tls.key }),
        ...(tls.servername !== undefined && { servername: tls.servername }),
      },
    }),
    ...(sasl && {
      sasl: {
        mechanism: sasl.mechanism.toUpperCase() as 'PLAIN' | 'SCRAM-SHA-256' | 'SCRAM-SHA-512',
        username: sasl.username,
        password: sasl.password,
      },
    }),
  };
}

/**
 * Places records with the Java client's partitioner (`partitioner.ts`), as explicit partitions.
 * @platformatic/kafka's own default (`murmur2 >>> 0`, unsigned) puts keys elsewhere than kafkajs and
 * the Java client did, and a custom partitioner is called before the client has fetched the topic's
 * metadata: on a producer's first send to a topic it has no partition count, and every record of that
 * send landed on partition 0. So the adapter asks the partition count itself, once per topic.
 */
function placement(producer: Producer<string, Buffer, string, Buffer>) {
  const partitionOf = memoPartitionOf();
  const counts = new Map<string, number>();
  return async (
    records: readonly OutgoingRecord[],
  ): Promise<MessageToProduce<string, Buffer, string, Buffer>[]> => {
    const unknown = [...new Set(records.map((r) => r.topic))].filter((t) => !counts.has(t));
    if (unknown.length) {
      const meta = await producer.metadata({ topics: unknown });
      for (const t of unknown) {
        const n = meta.topics.get(t)?.partitionsCount;
        if (!n)
          throw Object.assign(new Error(`topic ${t} is unknown`), { type: 'UNKNOWN_TOPIC_OR_PARTITION' });
        counts.set(t, n);
      }
    }
    return toMessages(records, (r) => partitionOf(r.key, counts.get(r.topic)!));
  };
}

const stringSerializers = {
  key: (k?: string) => (k === undefined ? undefined : Buffer.from(k, 'utf8')),
  value: (v?: Buffer) => v,
  headerKey: (k?: string) => (k === undefined ? undefined : Buffer.from(k, 'utf8')),
  headerValue: (v?: Buffer) => v,
};

const toMessages = (
  records: readonly OutgoingRecord[],
  partitionOf: (r: OutgoingRecord) => number,
): MessageToProduce<string, Buffer, string, Buffer>[] =>
  records.map((r) => ({
    topic: r.topic,
    partition: partitionOf(r),
    key: r.key,
    value: r.value,
    ...(r.headers && {
      headers: new Map(
        Object.entries(r.headers).map(([k, v]) => [k, typeof v === 'string' ? Buffer.from(v, 'utf8') : v]),
      ),
    }),
  }));

function producerOf(
  conn: Connection,
  extra: { transactionalId?: string; timeout?: number; producerId?: bigint; producerEpoch?: number },
) {
  return new Producer<string, Buffer, string, Buffer>({
    ...conn,
    ...extra,
    idempotent: true,
    acks: ProduceAcks.ALL,
    autocreateTopics: false,
    // Records of a partition stay in order: one produce request per partition at a time.
    maxInflights: 1,
    serializers: stringSerializers,
  });
}

function adminPort(conn: Connection): KafkaAdmin {
  const admin = new Admin(conn);
  const listed = async (topic: string, isolationLevel: 0 | 1, timestamp: bigint) => {
    const meta = await admin.metadata({ topics: [topic] });
    const count = meta.topics.get(topic)?.partitionsCount ?? 0;
    if (!count) throw new Error(`topic ${topic} has no partitions`);
    const [answer] = await admin.listOffsets({
      isolationLevel,
      topics: [
        {
          name: topic,
          partitions: Array.from({ length: count }, (_, partitionIndex) => ({ partitionIndex, timestamp })),
        },
      ],
    });
    return new Map((answer?.partitions ?? []).map((p) => [p.partitionIndex, p.offset]));
  };
  const topicPartitions = async (topics: readonly string[]) => {
    const meta = await admin.metadata({ topics: [...topics], forceUpdate: true });
    const result = new Map<string, number[]>();
    for (const t of topics) {
      const m = meta.topics.get(t);
      if (!m) throw Object.assign(new Error(`topic ${t} is unknown`), { type: 'UNKNOWN_TOPIC_OR_PARTITION' });
      if (m.partitions.some((p) => p.leader < 0))
        throw Object.assign(new Error(`topic ${t} has a partition without leader`), {
          type: 'LEADER_NOT_AVAILABLE',
        });
      result.set(
        t,
        m.partitions.map((_, i) => i),
      );
    }
    return result;
  };
  return {
    // The client connects on first use; asking the metadata surfaces TLS and SASL failures here.
    connect: async () => {
      await admin.metadata({ topics: [] });
    },
    disconnect: () => admin.close(),
    listTopics: () => admin.listTopics(),
    createTopics: async (topics) => {
      for (const t of topics) {
        await admin.createTopics({
          topics: [t.topic],
          partitions: t.partitions,
          replicas: t.replicationFactor,
          configs: Object.entries(t.configs).map(([name, value]) => ({ name, value })),
        });
      }
      // The topics are usable when this returns (every partition has a leader).
      await waitForLeaders(() => topicPartitions(topics.map((t) => t.topic)));
    },
    topicPartitions,
    describeCluster: async () => {
      await admin.metadata({ topics: [], forceUpdate: true });
    },
    topicOffsets: async (topic, isolation = 'committed'): Promise<PartitionOffsets[]> => {
      const level =
        isolation === 'committed'
          ? FetchIsolationLevels.READ_COMMITTED
          : FetchIsolationLevels.READ_UNCOMMITTED;
      const [low, high] = await Promise.all([
        listed(topic, level, ListOffsetTimestamps.EARLIEST),
        listed(topic, level, ListOffsetTimestamps.LATEST),
      ]);
      return [...high.keys()]
        .sort((a, b) => a - b)
        .map((partition) => ({
          partition,
          low: String(low.get(partition) ?? 0n),
          high: String(high.get(partition)),
        }));
    },
    groupOffsets: async (groupId, topics) => {
      const [group] = await admin.listConsumerGroupOffsets({ groups: [groupId] });
      const wanted = new Set(topics);
      return (group?.topics ?? [])
        .filter((t) => wanted.has(t.name))
        .flatMap((t) =>
          t.partitions.map((p) => ({
            topic: t.name,
            partition: p.partitionIndex,
            offset: String(p.committedOffset),
          })),
        );
    },
    deleteTopics: (topics) => admin.deleteTopics({ topics: [...topics] }),
    listGroups: async () => [...(await admin.listGroups()).keys()],
    deleteGroups: (groups) => admin.deleteGroups({ groups: [...groups] }),
  };
}

type Listeners = { [E in keyof GroupConsumerEvents]: GroupConsumerEvents[E][] };
type Msg = Message<Buffer, Buffer, Buffer, Buffer>;

/** Records handed over per drain at most (the runner splits a partition's run into chunks). */
const MAX_BATCH = 20_000;
/** How long the loop waits for records before it looks for transaction markers to commit past. */
const IDLE_MS = 200;

/**
 * A group consumer over @platformatic/kafka's MessagesStream (read_committed, no autocommit). The
 * stream hands out single messages; this drains what it has buffered, groups it by partition and
 * hands each partition's run to `eachBatch`, so the runner sees batches as with kafkajs. Offsets are
 * committed only when the handler resolved them.
 *
 * - Rebalances are the client's: after a rejoin the stream fetches each partition again from its
 *   committed offset. A partition this member lost is stale (the handler stops); one it kept may
 *   see records again, which the checkpoints skip.
 * - Transaction markers take offsets but are no records: once a partition's records are all applied
 *   and the stream's fetch position is past them, the committed offset moves past the markers too
 *   (the read barrier and the lag need it), and `batchEnd` reports that position.
 * - A seek closes the stream, commits the offset sought, and opens a new stream at the committed
 *   offsets.
 */
function groupConsumerPort(conn: Connection, opts: GroupConsumerOptions, logger: Logger): GroupConsumer {
  const consumer = new Consumer({
    ...conn,
    groupId: opts.groupId,
    isolationLevel: FetchIsolationLevels.READ_COMMITTED,
    autocommit: false,
    sessionTimeout: opts.sessionTimeoutMs,
    heartbeatInterval: opts.heartbeatIntervalMs,
    rebalanceTimeout: Math.max(60_000, opts.sessionTimeoutMs),
    maxWaitTime: 100,
    maxBytes: 64 * 1024 * 1024,
    maxBytesPerPartition: 16 * 1024 * 1024,
  });
  const listeners: Listeners = { join: [], leave: [], fetch: [], crash: [], batchStart: [], batchEnd: [] };
  const emit = <E extends keyof GroupConsumerEvents>(e: E, ...args: Parameters<GroupConsumerEvents[E]>) => {
    for (const l of listeners[e]) (l as (...a: unknown[]) => void)(...args);
  };
  let running = false;
  let stream: MessagesStream<Buffer, Buffer, Buffer, Buffer> | undefined;
  /** Seeks asked for and not yet carried out, per partition (the lowest offset wins). */
  let restart: Map<string, { topic: string; partition: number; offset: bigint }> | undefined;
  let wake: (() => void) | undefined;
  consumer.on('consumer:group:join', () => emit('join'));
  consumer.on('consumer:group:rebalance', () => emit('leave'));
  consumer.on('consumer:group:leave', () => emit('leave'));
  // Alive: a stream's fetch answered (see open), or, when the stream does not fetch (nothing
  // assigned, its buffer full while the handler works), a heartbeat the coordinator accepted.
  consumer.on('consumer:heartbeat:end', () => emit('fetch'));

  const assigned = (topic: string, partition: number) =>
    (consumer.assignments ?? []).some((a) => a.topic === topic && a.partitions.includes(partition));

  const epochs = new Map<string, number>();
  /** Per partition: the next offset after the last record handed over, and after the last applied. */
  const delivered = new Map<string, bigint>();
  const applied = new Map<string, bigint>();
  const commit = async (topic: string, partition: number, next: bigint) => {
    try {
      await consumer.commit({
        offsets: [{ topic, partition, offset: next, leaderEpoch: epochs.get(`${topic}:${partition}`) ?? -1 }],
      });
    } catch (err) {
      // A commit refused during a rebalance: the checkpoints make the redelivery harmless.
      logger.warn('consumer_commit_failed', {
        groupId: opts.groupId,
        topic,
        partition,
        error: (err as Error).message,
      });
    }
  };

  const open = async () => {
    const s = await consumer.consume({
      topics: [...opts.topics],
      mode: 'committed',
      fallbackMode: opts.fromBeginning ? 'earliest' : 'latest',
      autocommit: false,
      highWaterMark: MAX_BATCH,
      maxWaitTime: 100,
    });
    // One 'readable' listener for the stream's life: it keeps the stream in paused mode, where it
    // fetches ahead up to its high-water mark. (Removing the last 'readable' listener would set it
    // to "nobody reads", and the client stops fetching.)
    s.on('readable', () => wake?.());
    s.on('close', () => wake?.());
    s.on('fetch', () => emit('fetch'));
    // A stream that failed (the broker gone) is destroyed with its error and then closes: the loop
    // opens a new one. Without a listener the error would be thrown out of the process.
    s.on('error', (err: Error) =>
      logger.warn('consumer_stream_failed', { groupId: opts.groupId, ...describeFailure(err) }),
    );
    return (stream = s);
  };

  /** What the stream has buffered, without waiting (at most MAX_BATCH messages). */
  const drain = (s: MessagesStream<Buffer, Buffer, Buffer, Buffer>): Msg[] => {
    const out: Msg[] = [];
    for (let m; out.length < MAX_BATCH && (m = s.read() as Msg | null);) out.push(m);
    return out;
  };

  /** Partitions whose records were passed over (not assigned when drained): never moved past. */
  const skipped = new Set<string>();

  /**
   * Idle, everything handed over applied: commit past the transaction markers (and aborted records)
   * the stream read but never handed over, up to its fetch position.
   */
  const passMarkers = async (s: MessagesStream<Buffer, Buffer, Buffer, Buffer>) => {
    if (s.readableLength > 0) return;
    for (const [k, fetched] of s.offsetsToFetch) {
      if (skipped.has(k) || delivered.get(k) !== applied.get(k)) continue;
      const from = applied.get(k) ?? s.offsetsCommitted.get(k);
      if (from === undefined || fetched <= from) continue;
      const at = k.lastIndexOf(':');
      const topic = k.slice(0, at);
      const partition = Number(k.slice(at + 1));
      if (!assigned(topic, partition)) continue;
      await commit(topic, partition, fetched);
      applied.set(k, fetched);
      delivered.set(k, fetched);
      emit('batchEnd', topic, partition, String(fetched - 1n));
    }
  };

  const loop = async (eachBatch: (batch: FetchedBatch, control: BatchControl) => Promise<void>) => {
    for (let failures = 0; running;) {
      let s: MessagesStream<Buffer, Buffer, Buffer, Buffer>;
      try {
        s = stream ?? (await open());
        failures = 0;
      } catch (err) {
        // The broker away (a restart): try again with backoff, not joined meanwhile. Should it never
        // come back, the runner's stall watchdog replaces this consumer; anything else is a crash.
        if (!running) return;
        if (classifyError(err) !== 'retriable') throw err;
        emit('leave');
        const delayMs = backoffDelay(failures++, { baseMs: 500, maxMs: 5_000 });
        logger.warn('consumer_open_retrying', {
          groupId: opts.groupId,
          attempt: failures,
          delay_ms: delayMs,
          ...describeFailure(err),
        });
        await sleep(delayMs);
        continue;
      }
      const messages = drain(s);
      if (!messages.length) {
        let timer: NodeJS.Timeout | undefined;
        const idle = await new Promise<boolean>((resolve) => {
          wake = () => resolve(false);
          timer = setTimeout(() => resolve(true), IDLE_MS);
        });
        clearTimeout(timer);
        wake = undefined;
        if (restart || !s.readable) await reopen();
        else if (idle) await passMarkers(s);
        continue;
      }
      const byPartition = new Map<string, Msg[]>();
      for (const m of messages) {
        const k = `${m.topic}:${m.partition}`;
        epochs.set(k, m.leaderEpoch);
        let list = byPartition.get(k);
        if (!list) byPartition.set(k, (list = []));
        list.push(m);
      }
      for (const [k, list] of byPartition) {
        if (!running || restart) break;
        const { topic, partition } = list[0]!;
        // Records of a partition this member lost in a rebalance: its new owner reads them.
        if (!assigned(topic, partition)) {
          skipped.add(k);
          continue;
        }
        delivered.set(k, list[list.length - 1]!.offset + 1n);
        let resolved: bigint | undefined;
        const records = list.map((m): ConsumedRecord => ({
          topic,
          partition,
          offset: String(m.offset),
          key: m.key ?? null,
          value: m.value ?? null,
          timestamp: String(m.timestamp),
          ...(m.headers.size
            ? { headers: Object.fromEntries([...m.headers].map(([hk, v]) => [hk.toString(), v])) }
            : {}),
        }));
        emit('batchStart', topic, partition);
        await eachBatch(
          { topic, partition, records, highWatermark: undefined },
          {
            resolveOffset: (offset) => (resolved = BigInt(offset)),
            commitResolved: async () => {
              if (resolved !== undefined) await commit(topic, partition, resolved + 1n);
            },
            heartbeat: () => Promise.resolve(),
            isRunning: () => running,
            isStale: () => restart !== undefined || !assigned(topic, partition),
          },
        );
        if (resolved !== undefined) {
          applied.set(k, resolved + 1n);
          emit('batchEnd', topic, partition, String(resolved));
        }
      }
      if (restart) await reopen();
    }
  };

  /** A new stream at the committed offsets (after a seek, or a stream that closed). */
  const reopen = async () => {
    const seeks = [...(restart?.values() ?? [])];
    restart = undefined;
    // Committed while this member still holds the partitions: the next stream starts there.
    for (const r of seeks) await commit(r.topic, r.partition, r.offset);
    const old = stream;
    stream = undefined;
    await old?.close().catch(() => {});
    delivered.clear();
    applied.clear();
    skipped.clear();
  };

  return {
    on<E extends keyof GroupConsumerEvents>(event: E, listener: GroupConsumerEvents[E]) {
      listeners[event].push(listener);
    },
    async run(eachBatch) {
      running = true;
      await open();
      void loop(eachBatch).catch((err: unknown) => {
        running = false;
        emit('leave');
        emit('crash', err as Error, false);
      });
    },
    seek(topic, partition, offset) {
      const k = `${topic}:${partition}`;
      const at = BigInt(offset);
      restart ??= new Map();
      const before = restart.get(k);
      if (!before || at < before.offset) restart.set(k, { topic, partition, offset: at });
      wake?.();
    },
    async stop() {
      running = false;
      wake?.();
      await stream?.close().catch(() => {});
      await consumer.close(true).catch(() => {});
      emit('leave');
    },
  };
}

/** Runs `step` on a new producer; a producer that cannot be readied is closed, not leaked. */
async function warm(producer: Producer<string, Buffer, string, Buffer>, step: () => Promise<unknown>) {
  try {
    await step();
  } catch (err) {
    await producer.close().catch(() => {});
    throw err;
  }
}

/**
 * The @platformatic/kafka adapter of the ports (the project's one Kafka client).
 *
 * @example
 * const kafka = platformaticClient(['127.0.0.1:9092'], 'gateway', logger);
 */
export function platformaticClient(
  brokers: readonly string[],
  clientId: string,
  logger: Logger,
  security?: KafkaSecurityConfig,
): KafkaClient {
  const conn = connection(brokers, clientId, security);
  return {
    transactionalProducer: async ({ transactionalId, transactionTimeoutMs }) => {
      // The client sends its `timeout` as the transaction timeout of InitProducerId, and its
      // producerId/epoch (default 0/0) as the ones it expects the transactional id to have: a fresh
      // producer fencing an older one under the same id (TransactionalAppender) must send −1/−1
      // ("none known"), or the coordinator answers every InitProducerId with a fencing error.
      const producer = producerOf(conn, {
        transactionalId,
        timeout: transactionTimeoutMs,
        producerId: -1n,
        producerEpoch: -1,
      });
      // The client finds the coordinator and asks the producer id on the first transaction only;
      // done here, a new producer fences an older one now, and the first request does not pay for it
      // (under load it pushed the first appends past the pixel's 2 s stall bound: 503s). A begun and
      // cancelled transaction sends nothing more: a transaction opens at the broker with its first
      // partition.
      await warm(producer, async () => (await producer.beginTransaction()).cancel());
      const place = placement(producer);
      return {
        transaction: async () => {
          const tx = await producer.beginTransaction();
          return {
            send: async (records: readonly OutgoingRecord[]) => {
              await tx.send({ messages: await place(records) });
            },
            commit: () => tx.commit(),
            abort: () => tx.abort(),
          };
        },
        close: () => producer.close(),
      };
    },
    idempotentProducer: async () => {
      const producer = producerOf(conn, {});
      // The producer id now rather than on the first send (see above).
      await warm(producer, () => producer.initIdempotentProducer({}));
      const place = placement(producer);
      return {
        // The client encodes a send call's messages of one partition as ONE record batch.
        send: async (records: readonly OutgoingRecord[]) => {
          await producer.send({ messages: await place(records) });
        },
        close: () => producer.close(),
      };
    },
    admin: (o) => adminPort(o?.retries === undefined ? conn : { ...conn, retries: o.retries }),
    groupConsumer: (o) => groupConsumerPort(conn, o, logger),
  };
}
