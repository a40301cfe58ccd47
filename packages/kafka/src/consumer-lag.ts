import type { KafkaAdmin, KafkaClient } from './ports.js';
import { Gauge, type Registry } from '@holdfast/platform';

/** Lag of one partition for one consumer group. */
export interface PartitionLag {
  readonly topic: string;
  readonly partition: number;
  readonly lag: number;
}

/** A source of per-partition lag, asked at scrape time so /metrics never shows a stale number. */
export type LagSource = () => Promise<readonly PartitionLag[]>;

/**
 * Lag per partition of `topics` for consumer group `groupId`: high watermark minus committed offset.
 * Holdfast's groups commit only after their work is durable (and past transaction markers), so 0
 * means "everything in the log is applied".
 *
 * @example
 * const lag = consumerLag(kafka, 'holdfast.projector', ['holdfast.commerce']);
 * console.log(await lag()); // [{ topic: 'holdfast.commerce', partition: 0, lag: 12 }, ...]
 * await lag.close();
 */
export function consumerLag(
  kafka: KafkaClient,
  groupId: string,
  topics: readonly string[],
): LagSource & { readonly groupId: string; close(): Promise<void> } {
  let admin: Promise<KafkaAdmin> | undefined;
  const connect = () =>
    (admin ??= (async () => {
      // No retries of its own: a scrape during an outage must answer quickly (the gauge is then
      // left out), not hang for the client's whole retry schedule.
      const a = kafka.admin({ retries: 0 });
      try {
        await a.connect();
      } catch (err) {
        admin = undefined;
        throw err;
      }
      return a;
    })());
  // One answer serves every scrape within a second (two gauges of one process ask the same source).
  let recent: { at: number; value: Promise<PartitionLag[]> } | undefined;
  const source = () => {
    if (recent && Date.now() - recent.at < 1_000) return recent.value;
    const value = measure();
    recent = { at: Date.now(), value };
    value.catch(() => (recent = undefined));
    return value;
  };
  const measure = async () => {
    const a = await connect();
    const committed = await a.groupOffsets(groupId, topics);
    const result: PartitionLag[] = [];
    for (const topic of topics) {
      const offsets = await a.topicOffsets(topic);
      const mine = committed.filter((c) => c.topic === topic);
      for (const o of offsets) {
        const c = Number(mine.find((p) => p.partition === o.partition)?.offset ?? -1);
        const position = c < 0 ? Number(o.low) : c;
        result.push({ topic, partition: o.partition, lag: Math.max(0, Number(o.high) - position) });
      }
    }
    return result;
  };
  return Object.assign(source, {
    groupId,
    close: async () => {
      const a = admin;
      admin = undefined;
      if (a) await (await a.catch(() => undefined))?.disconnect();
    },
  });
}

/**
 * Registers `holdfast_consumer_lag_records{group, topic, partition}` on `registry`, asking each
 * source at scrape time. Every service adds the lag of each consumer group it runs; a source that
 * fails (Kafka away) is left out of that scrape.
 *
 * @example
 * const lag = consumerLag(kafka, groupId, topics);
 * registerConsumerLag(registry, [lag]);
 */
export function registerConsumerLag(
  registry: Registry,
  sources: readonly (LagSource & { readonly groupId: string })[],
): void {
  new Gauge({
    name: 'holdfast_consumer_lag_records',
    help: 'Records not yet applied per consumer group and partition: high watermark minus committed offset.',
    labelNames: ['group', 'topic', 'partition'],
    registers: [registry],
    async collect() {
      this.reset();
      const all = await Promise.all(sources.map(async (s) => ({ s, lags: await s().catch(() => []) })));
      for (const { s, lags } of all)
        for (const l of lags)
          this.set({ group: s.groupId, topic: l.topic, partition: String(l.partition) }, l.lag);
    },
  });
}
