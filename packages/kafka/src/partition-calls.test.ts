import { describe, expect, it } from 'vitest';
import { partitionCalls } from './partition-calls.js';
import { partitionOfKey } from './partitioner.js';
import type { OutgoingRecord } from './ports.js';

const record = (topic: string, key: string, value: string): OutgoingRecord => ({
  topic,
  key,
  value: Buffer.from(value),
});

/** A key the partitioner sends to `partition` of `n` partitions. */
function keyFor(partition: number, n: number, prefix = 'k'): string {
  for (let i = 0; ; i++) if (partitionOfKey(`${prefix}${i}`, n) === partition) return `${prefix}${i}`;
}

const summary = (calls: ReturnType<typeof partitionCalls>) =>
  calls.map((c) => ({
    topic: c.topic,
    partition: c.partition,
    values: c.records.map((r) => r.value.toString()),
  }));

describe('partitionCalls', () => {
  it('gives each partition of each topic calls of its own, its records in their order', () => {
    // Given records alternating between two partitions of one topic and one of another
    const [a, b] = [keyFor(0, 2), keyFor(1, 2)];
    const records = [
      record('t', a, 'a1'),
      record('t', b, 'b1'),
      record('u', 'x', 'x1'),
      record('t', a, 'a2'),
      record('t', b, 'b2'),
    ];
    // When they are split
    const calls = partitionCalls(records, (t) => (t === 't' ? 2 : 3), partitionOfKey, 1000);
    // Then one call per partition, each with its records in the order given
    expect(summary(calls)).toEqual([
      { topic: 't', partition: 0, values: ['a1', 'a2'] },
      { topic: 't', partition: 1, values: ['b1', 'b2'] },
      { topic: 'u', partition: partitionOfKey('x', 3), values: ['x1'] },
    ]);
  });

  it('cuts a partition with more records than a slice into consecutive calls', () => {
    // Given five records of one partition and slices of two
    const records = Array.from({ length: 5 }, (_, i) => record('t', 'k', `v${i}`));
    // When they are split
    const calls = partitionCalls(records, () => 4, partitionOfKey, 2);
    // Then three calls of that partition, in order
    expect(summary(calls).map((c) => c.values)).toEqual([['v0', 'v1'], ['v2', 'v3'], ['v4']]);
    expect(new Set(calls.map((c) => c.partition))).toEqual(new Set([partitionOfKey('k', 4)]));
  });

  it('gives no calls for no records', () => {
    expect(partitionCalls([], () => 1, partitionOfKey, 10)).toEqual([]);
  });
});
