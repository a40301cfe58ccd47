import { randomUUID } from 'node:crypto';
import { classifyError } from '@holdfast/platform';
import type { KafkaClient, OutgoingRecord, TransactionalProducer as Producer } from './ports.js';
import { IdlePool } from './idle-pool.js';

/**
 * Records at most in one group commit (see `groupCommit`): a group stays well under the broker's
 * request limits and one failure fails a bounded number of callers.
 */
const MAX_GROUP_RECORDS = 5000;

/** Attempts of one append's transaction: the second on a fenced (fresh) producer. */
const MAX_ATTEMPTS = 2;

/**
 * One transactional id of the pool and its current producer. A producer whose transaction failed is
 * replaced before its next use (`broken`): a client can leave it in a state it never leaves (an
 * abort the dead broker never answered, or an open transaction the coordinator still holds,
 * answered CONCURRENT_TRANSACTIONS), and a fresh producer under the same transactional
 * id fences the old one: its InitProducerId bumps the epoch and the coordinator aborts whatever was
 * left open.
 */
interface Slot {
  readonly transactionalId: string;
  producer: Producer | undefined;
  broken: boolean;
}

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
 * A pool of transactional producers. A producer has one open transaction at a time, so concurrent
 * requests each borrow their own; one HTTP batch is one transaction.
 *
 * With `groupCommit`, appends that arrive while every producer is busy are merged into one
 * transaction (group commit): each append's records are still all visible or none, but many small
 * appends (pixel requests of 50 events) share the transaction's Kafka round trips.
 */
export class TransactionalAppender implements Appender {
  private readonly idle = new IdlePool<Slot>();
  private readonly all: Slot[] = [];
  private pending: PendingGroup | undefined;

  private constructor(
    private readonly kafka: KafkaClient,
    private readonly timeoutMs: number,
    private readonly groupCommit: boolean,
  ) {}

  private connect(slot: Slot): Promise<Producer> {
    return this.kafka.transactionalProducer({
      transactionalId: slot.transactionalId,
      transactionTimeoutMs: this.timeoutMs,
    });
  }

  /** A producer ready for a transaction: the slot's own, or a fresh one fencing a broken one. */
  private async ready(slot: Slot): Promise<Producer> {
    if (slot.producer && !slot.broken) return slot.producer;
    const old = slot.producer;
    slot.producer = undefined;
    await old?.close().catch(() => {});
    slot.producer = await this.connect(slot);
    slot.broken = false;
    return slot.producer;
  }

  static async create(
    kafka: KafkaClient,
    {
      name,
      size = 4,
      transactionTimeoutMs = 60_000,
      groupCommit = false,
    }: { name: string; size?: number; transactionTimeoutMs?: number; groupCommit?: boolean },
  ): Promise<TransactionalAppender> {
    const appender = new TransactionalAppender(kafka, transactionTimeoutMs, groupCommit);
    const instance = randomUUID().slice(0, 8);
    await Promise.all(
      Array.from({ length: size }, async (_, i) => {
        const slot: Slot = {
          transactionalId: `${name}-${instance}-${i}`,
          producer: undefined,
          broken: false,
        };
        appender.all.push(slot);
        slot.producer = await appender.connect(slot);
        appender.idle.giveBack(slot);
      }),
    );
    return appender;
  }

  async append(records: readonly OutgoingRecord[]): Promise<void> {
    if (!records.length) return;
    if (!this.groupCommit || this.idle.size > 0) {
      const slot = await this.idle.borrow();
      try {
        await this.send(slot, records);
      } finally {
        this.idle.giveBack(slot);
      }
      return;
    }
    // Every producer is busy: join the group the next free producer commits. Each caller's records
    // still become visible together or not at all; a failed group fails every caller in it.
    let group = this.pending;
    if (!group || group.records.length + records.length > MAX_GROUP_RECORDS) {
      const g: PendingGroup = { records: [], done: Promise.resolve() };
      g.done = this.idle.borrow().then(async (slot) => {
        if (this.pending === g) this.pending = undefined;
        try {
          await this.send(slot, g.records);
        } finally {
          this.idle.giveBack(slot);
        }
      });
      group = this.pending = g;
    }
    for (const r of records) group.records.push(r);
    return group.done;
  }

  /**
   * One append's transaction. A retriable failure before the commit was sent (the broker away, a
   * transaction the coordinator still holds open from before a broker restart) is retried whole on a
   * fenced producer: the fencing aborts the failed attempt, so nothing of it can become visible and
   * the retry cannot duplicate it. A failed commit is not retried (it may have landed: the caller
   * answers 500 and the client re-posts, as the spec says); its producer is fenced before its next use.
   */
  private async send(slot: Slot, records: readonly OutgoingRecord[]): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      let committing = false;
      try {
        await this.transact(await this.ready(slot), records, () => (committing = true));
        return;
      } catch (err) {
        slot.broken = true;
        if (committing || attempt >= MAX_ATTEMPTS || classifyError(err) !== 'retriable') throw err;
      }
    }
  }

  private async transact(
    producer: Producer,
    records: readonly OutgoingRecord[],
    onCommit: () => void,
  ): Promise<void> {
    const tx = await producer.transaction();
    try {
      await tx.send(records, this.timeoutMs);
      onCommit();
      await tx.commit();
    } catch (err) {
      await tx.abort().catch(() => {});
      throw err;
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.all.map((s) => s.producer?.close().catch(() => {}) ?? Promise.resolve()));
  }
}
