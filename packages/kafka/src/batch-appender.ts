import type { IdempotentProducer, KafkaClient, OutgoingRecord } from './ports.js';
import { IdlePool } from './idle-pool.js';

/**
 * The port of an appender whose calls each carry records of ONE topic and ONE key (so ONE partition):
 * every record of a call becomes visible, or none does.
 */
export interface SinglePartitionAppender {
  /** Appends `records` (one topic, one key) as one record batch: all become visible, or none. */
  append(records: readonly OutgoingRecord[]): Promise<void>;
  close(): Promise<void>;
}

/** A call whose records do not share one topic and one key (a programming error: nothing is sent). */
export class MixedPartitionError extends Error {
  constructor() {
    super('IdempotentBatchAppender.append needs records of one topic and one key (one partition)');
    this.name = 'MixedPartitionError';
  }
}

export interface IdempotentBatchAppenderOptions {
  /** Producers kept open; each has at most one produce request in flight. Default 4. */
  readonly size?: number;
  /**
   * A producer idle for longer than this is replaced before its next send (default 1 hour). The
   * broker forgets an idle producer id after `producer.id.expiration.ms` (1 day by default), and a
   * send under a forgotten id would fail once.
   */
  readonly maxIdleMs?: number;
  /** Broker-side acknowledgement timeout of one produce request. Default 30 s. */
  readonly timeoutMs?: number;
}

interface Member {
  producer: IdempotentProducer;
  lastUsed: number;
}

/**
 * Appends each call's records with ONE idempotent, non-transactional produce request, under the
 * precondition that they share one topic and one key. It costs one broker round trip per call,
 * where a Kafka transaction costs four (AddPartitionsToTxn, Produce, EndTxn, and the coordinator's
 * markers) plus the retries of the next transaction while the markers are still being written.
 *
 * Why one call is still all or none (the guarantee `TransactionalAppender` gives with a transaction):
 * 1. One key → one partition: the partitioner maps a key to a partition by hash, so every record of
 *    the call goes to the same partition.
 * 2. One partition → one record batch in one Produce request: @platformatic/kafka groups a send
 *    call's messages by leader, one Produce request per leader, and encodes each partition's
 *    messages of a request as ONE record batch (`apis/producer/produce-v11.js`: one
 *    `createRecordsBatch` per partition); it never splits a partition's messages across batches or
 *    requests, whatever their size. The test "a batch the broker refuses … NONE of its records is
 *    stored" holds it.
 * 3. The broker appends a record batch whole or rejects it whole: it validates the batch (CRC, size
 *    against `max.message.bytes`, sequence) before the append, and the append of one batch to the
 *    log is a single operation. A batch too large for the topic is refused entirely
 *    (MESSAGE_TOO_LARGE); no prefix of it is written.
 * 4. Retries do not duplicate: the producer is idempotent (producer id + epoch + sequence number per
 *    partition). A Produce whose answer was lost and that the client retries is recognised by the broker
 *    as a duplicate and answered with the original offsets, not written twice.
 * 5. Consumers see it whole: a non-transactional batch is visible to `read_committed` consumers as
 *    soon as it is replicated (it holds no transaction open), and fetches return whole batches.
 *
 * The one remaining ambiguity is the same as a transaction's commit that times out: a call that
 * fails after the broker appended the batch (the answer was lost and retrying never succeeded)
 * reports a failure although the records are stored. The records are then stored once, and the
 * producer that failed is retired: a client that rewinds its sequence number after a failed send
 * (kafkajs did) could send a later batch under the same producer id with the rewound sequence, taken
 * for a duplicate of the stored one and silently dropped. A fresh producer gets a new producer id.
 *
 * Everything that needs atomicity ACROSS partitions or topics (an ingest batch plus its
 * IngestBatchRecorded record) must keep using `TransactionalAppender`.
 */
export class IdempotentBatchAppender implements SinglePartitionAppender {
  private readonly idle = new IdlePool<Member>();
  private readonly live = new Set<Member>();
  private closed = false;

  private constructor(
    private readonly kafka: KafkaClient,
    private readonly opts: Required<IdempotentBatchAppenderOptions>,
  ) {}

  static async create(
    kafka: KafkaClient,
    opts: IdempotentBatchAppenderOptions = {},
  ): Promise<IdempotentBatchAppender> {
    const appender = new IdempotentBatchAppender(kafka, {
      size: 4,
      maxIdleMs: 60 * 60_000,
      timeoutMs: 30_000,
      ...opts,
    });
    await Promise.all(
      Array.from({ length: appender.opts.size }, async () => {
        appender.idle.giveBack(await appender.connect());
      }),
    );
    return appender;
  }

  private async connect(): Promise<Member> {
    const producer = await this.kafka.idempotentProducer();
    const m = { producer, lastUsed: performance.now() };
    this.live.add(m);
    return m;
  }

  private retire(m: Member): void {
    this.live.delete(m);
    void m.producer.close().catch(() => {});
  }

  /** A fresh producer in place of `old` (retired); on failure the pool keeps `old`'s slot free. */
  private async replace(old: Member): Promise<Member> {
    this.retire(old);
    return this.connect();
  }

  async append(records: readonly OutgoingRecord[]): Promise<void> {
    if (!records.length) return;
    if (this.closed) throw new Error('IdempotentBatchAppender is closed');
    const { topic, key } = records[0]!;
    for (const r of records) if (r.topic !== topic || r.key !== key) throw new MixedPartitionError();
    let m = await this.idle.borrow();
    let ok = false;
    try {
      if (performance.now() - m.lastUsed > this.opts.maxIdleMs) m = await this.replace(m);
      // ONE send call with ONE topic and ONE key: one record batch on one partition (see above).
      await m.producer.send(records, this.opts.timeoutMs);
      m.lastUsed = performance.now();
      ok = true;
    } finally {
      if (ok) this.idle.giveBack(m);
      else this.recycle(m);
    }
  }

  /** After a failed send: the producer is retired and a fresh one takes its place in the pool. */
  private recycle(m: Member): void {
    this.retire(m);
    const again = (attempt: number): void => {
      if (this.closed) return;
      this.connect().then(
        (fresh) => (this.closed ? this.retire(fresh) : this.idle.giveBack(fresh)),
        () => setTimeout(() => again(attempt + 1), Math.min(5_000, 200 * 2 ** attempt)).unref(),
      );
    };
    again(0);
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.live].map((m) => m.producer.close().catch(() => {})));
    this.live.clear();
  }
}
