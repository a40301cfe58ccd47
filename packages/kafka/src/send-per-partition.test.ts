import { describe, expect, it } from 'vitest';
import { silentLogger } from '@holdfast/platform';
import { sendPerPartition, WrittenCheck, type SendCall } from './kafkajs-adapter.js';
import { partitionOfKey } from './partitioner.js';
import type { OutgoingRecord } from './ports.js';

/**
 * kafkajs's side of a send call, in memory: its partitioner places every message (as
 * `groupMessagesPerPartition` does) against a topic of `partitions` partitions, and the call answers
 * one entry per partition written.
 */
function fakeKafkajs(check: WrittenCheck, partitions: number) {
  const partitioner = check.partitioner();
  const calls: { topic: string; partition: number; values: string[]; explicit: boolean }[][] = [];
  const call: SendCall = (topicMessages) => {
    const placed = topicMessages.flatMap(({ topic, messages }) =>
      messages.map((message) => ({
        topic,
        partition: partitioner({ topic, message, partitionMetadata: Array.from({ length: partitions }) }),
        value: message.value.toString(),
        explicit: message.partition !== undefined,
      })),
    );
    const groups = new Map<
      string,
      { topic: string; partition: number; values: string[]; explicit: boolean }
    >();
    for (const p of placed) {
      const id = `${p.topic}/${p.partition}`;
      if (!groups.has(id))
        groups.set(id, { topic: p.topic, partition: p.partition, values: [], explicit: p.explicit });
      groups.get(id)!.values.push(p.value);
    }
    calls.push([...groups.values()]);
    return Promise.resolve([...groups.values()].map((g) => ({ topicName: g.topic, partition: g.partition })));
  };
  return { call, calls };
}

/** A key the partitioner sends to `partition` of `n` partitions. */
function keyFor(partition: number, n: number): string {
  for (let i = 0; ; i++) if (partitionOfKey(`k${i}`, n) === partition) return `k${i}`;
}

describe('sendPerPartition (the kafkajs transactional producer)', () => {
  it('never gives kafkajs a call spanning two partitions, so a retry never races a request in flight', async () => {
    // Given 200 records alternating between the two partitions of a topic the producer has not seen
    const keys = [keyFor(0, 2), keyFor(1, 2)];
    const records: OutgoingRecord[] = Array.from({ length: 200 }, (_, i) => ({
      topic: 't',
      key: keys[i % 2]!,
      value: Buffer.from(`v${i}`),
    }));
    const check = new WrittenCheck(silentLogger);
    const kafkajs = fakeKafkajs(check, 2);
    // When they are sent
    await sendPerPartition(records, check, kafkajs.call);
    // Then every call targets one partition: the first record alone (kafkajs's partitioner places it
    // and tells the partition count), then each partition's records with the partition given
    expect(kafkajs.calls.every((c) => c.length === 1)).toBe(true);
    expect(kafkajs.calls[0]![0]).toEqual({ topic: 't', partition: 0, values: ['v0'], explicit: false });
    expect(kafkajs.calls.slice(1).every((c) => c[0]!.explicit)).toBe(true);
    // And every record is sent once, each partition's records in their order
    const sent = (p: number) => kafkajs.calls.flatMap((c) => (c[0]!.partition === p ? c[0]!.values : []));
    expect(sent(0)).toEqual(records.filter((_, i) => i % 2 === 0).map((r) => r.value.toString()));
    expect(sent(1)).toEqual(records.filter((_, i) => i % 2 === 1).map((r) => r.value.toString()));
  });

  it('sends a topic it knows the partition count of without a record alone', async () => {
    // Given a producer that already sent to the topic
    const check = new WrittenCheck(silentLogger);
    const kafkajs = fakeKafkajs(check, 3);
    const record = (i: number): OutgoingRecord => ({ topic: 't', key: `k${i}`, value: Buffer.from(`v${i}`) });
    await sendPerPartition([record(0)], check, kafkajs.call);
    kafkajs.calls.length = 0;
    // When records for all three partitions are sent
    const records = Array.from({ length: 30 }, (_, i) => record(i));
    await sendPerPartition(records, check, kafkajs.call);
    // Then one call per partition, each the records of that partition
    expect(kafkajs.calls.map((c) => c[0]!.partition).sort()).toEqual([0, 1, 2]);
    for (const [c] of kafkajs.calls)
      expect(c!.values).toEqual(
        records.filter((r) => partitionOfKey(r.key, 3) === c!.partition).map((r) => r.value.toString()),
      );
  });
});
