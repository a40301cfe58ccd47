import type { OutgoingRecord } from './ports.js';

/** The records of one produce call: all of one partition of one topic, in the order given. */
export interface PartitionCall {
  readonly topic: string;
  readonly partition: number;
  readonly records: readonly OutgoingRecord[];
}

/**
 * Splits a send into calls of one partition each, at most `slice` records per call, each partition's
 * records in their order (records of different partitions have no order to keep). The kafkajs
 * adapter sends a producer's records this way so that a kafkajs call never has two requests in
 * flight (see `sendPerPartition` in kafkajs-adapter.ts).
 *
 * @example
 * partitionCalls(records, (topic) => 12, partitionOfKey, 1000);
 */
export function partitionCalls(
  records: readonly OutgoingRecord[],
  partitionsOf: (topic: string) => number,
  partitionOf: (key: string, partitions: number) => number,
  slice: number,
): PartitionCall[] {
  const byPartition = new Map<string, { topic: string; partition: number; records: OutgoingRecord[] }>();
  for (const r of records) {
    const partition = partitionOf(r.key, partitionsOf(r.topic));
    const id = `${r.topic}\u0000${partition}`;
    let group = byPartition.get(id);
    if (!group) byPartition.set(id, (group = { topic: r.topic, partition, records: [] }));
    group.records.push(r);
  }
  const calls: PartitionCall[] = [];
  for (const { topic, partition, records: list } of byPartition.values())
    for (let i = 0; i < list.length; i += slice)
      calls.push({ topic, partition, records: list.slice(i, i + slice) });
  return calls;
}
