import type { Admin, Kafka } from 'kafkajs';
import type { LagSource } from './metrics.js';

/**
 * Lag per partition of `topics` for consumer group `groupId`: high watermark minus committed offset.
 * The group commits only after the read-model transaction has committed (and past transaction
 * markers), so 0 means "everything in the log is in the read models".
 */
export function consumerLag(
  kafka: Kafka,
  groupId: string,
  topics: readonly string[],
): LagSource & { close(): Promise<void> } {
  let admin: Promise<Admin> | undefined;
  const connect = () =>
    (admin ??= (async () => {
      const a = kafka.admin();
      await a.connect();
      return a;
    })());
  const source = async () => {
    const a = await connect();
    const committed = await a.fetchOffsets({ groupId, topics: [...topics] });
    const result: { topic: string; partition: number; lag: number }[] = [];
    for (const topic of topics) {
      const offsets = await a.fetchTopicOffsets(topic);
      const mine = committed.find((c) => c.topic === topic)?.partitions ?? [];
      for (const o of offsets) {
        const c = Number(mine.find((p) => p.partition === o.partition)?.offset ?? -1);
        const position = c < 0 ? Number(o.low) : c;
        result.push({ topic, partition: o.partition, lag: Math.max(0, Number(o.high) - position) });
      }
    }
    return result;
  };
  return Object.assign(source, {
    close: async () => {
      if (admin) await (await admin).disconnect();
    },
  });
}
