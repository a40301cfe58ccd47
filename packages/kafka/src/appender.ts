import { randomUUID } from 'node:crypto';
import type { Kafka, Producer } from 'kafkajs';
import { memoKeyPartitioner } from './partitioner.js';

/**
 * Messages per topic in one produce call. kafkajs groups a call's messages by partition with an
 * array spread per message (quadratic: 12.5 M element copies for 5,000 records of one account, ~11 %
 * of the gateway's CPU); a transaction may span several calls, so larger batches go in slices.
 */
const SEND_SLICE = 1000;

/** One record to append: topic (physical name), key (account id), encoded value. */
export interface OutgoingRecord {
  readonly topic: string;
  readonly key: string;
  readonly value: Buffer;
}

/**
 * Records at most in one group commit (see `groupCommit`): a group stays well under the broker's
 * request limits and one failure fails a bounded number of callers.
 */
const MAX_GROUP_RECORDS = 5000;

interface PendingGroup {
  readonly records: OutgoingRecord[];
  done: Promise<void>;
}

/** The structural port services use: append records atomically. */
export interface Appender {
  /** Appends every record in one Kafka transaction: all become visible to read_committed consumers, or none. */
  append(records: readonly OutgoingRecord[]): Promise<void>;
  close(): Promise<void>;
}

/**
 * A pool of transactional producers. kafkajs allows one open transaction per producer, so concurrent
 * requests each borrow their own; one HTTP batch is one transaction.
 *
 * With `groupCommit`, appends that arrive while every producer is busy are merged into one
 * transaction (group commit): each append's records are still all visible or none, but many small
 * appends (pixel requests of 50 events) share the transaction's Kafka round trips.
 */
export class TransactionalAppender implements Appender {
  private readonly idle: Producer[] = [];
  private readonly waiters: ((p: Producer) => void)[] = [];
  private readonly all: Producer[] = [];
  private pending: PendingGroup | undefined;

  private constructor(
    private readonly timeoutMs: number,
    private readonly groupCommit: boolean,
  ) {}

  static async create(
    kafka: Kafka,
    {
      name,
      size = 4,
      transactionTimeoutMs = 60_000,
      groupCommit = false,
    }: { name: string; size?: number; transactionTimeoutMs?: number; groupCommit?: boolean },
  ): Promise<TransactionalAppender> {
    const appender = new TransactionalAppender(transactionTimeoutMs, groupCommit);
    const instance = randomUUID().slice(0, 8);
    await Promise.all(
      Array.from({ length: size }, async (_, i) => {
        const producer = kafka.producer({
          transactionalId: `${name}-${instance}-${i}`,
          idempotent: true,
          maxInFlightRequests: 1,
          transactionTimeout: transactionTimeoutMs,
          allowAutoTopicCreation: false,
          createPartitioner: memoKeyPartitioner,
        });
        await producer.connect();
        appender.all.push(producer);
        appender.idle.push(producer);
      }),
    );
    return appender;
  }

  private borrow(): Promise<Producer> {
    const p = this.idle.pop();
    if (p) return Promise.resolve(p);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private giveBack(p: Producer): void {
    const next = this.waiters.shift();
    if (next) next(p);
    else this.idle.push(p);
  }

  async append(records: readonly OutgoingRecord[]): Promise<void> {
    if (!records.length) return;
    if (!this.groupCommit || this.idle.length > 0) {
      const producer = await this.borrow();
      try {
        await this.send(producer, records);
      } finally {
        this.giveBack(producer);
      }
      return;
    }
    // Every producer is busy: join the group the next free producer commits. Each caller's records
    // still become visible together or not at all; a failed group fails every caller in it.
    let group = this.pending;
    if (!group || group.records.length + records.length > MAX_GROUP_RECORDS) {
      const g: PendingGroup = { records: [], done: Promise.resolve() };
      g.done = this.borrow().then(async (producer) => {
        if (this.pending === g) this.pending = undefined;
        try {
          await this.send(producer, g.records);
        } finally {
          this.giveBack(producer);
        }
      });
      group = this.pending = g;
    }
    for (const r of records) group.records.push(r);
    return group.done;
  }

  private async send(producer: Producer, records: readonly OutgoingRecord[]): Promise<void> {
    const byTopic = new Map<string, { key: string; value: Buffer }[]>();
    for (const r of records) {
      let list = byTopic.get(r.topic);
      if (!list) byTopic.set(r.topic, (list = []));
      list.push({ key: r.key, value: r.value });
    }
    const tx = await producer.transaction();
    try {
      // Slices in order: the records of one partition keep their order within the transaction.
      const slices = Math.ceil(Math.max(...[...byTopic.values()].map((m) => m.length)) / SEND_SLICE);
      for (let i = 0; i < slices; i++) {
        const topicMessages = [...byTopic]
          .map(([topic, messages]) => ({
            topic,
            messages: messages.slice(i * SEND_SLICE, (i + 1) * SEND_SLICE),
          }))
          .filter((t) => t.messages.length > 0);
        await tx.sendBatch({ topicMessages, timeout: this.timeoutMs });
      }
      await tx.commit();
    } catch (err) {
      await tx.abort().catch(() => {});
      throw err;
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.all.map((p) => p.disconnect().catch(() => {})));
  }
}
