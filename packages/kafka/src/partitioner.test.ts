import { randomUUID } from 'node:crypto';
import { Partitioners } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { memoPartitionOf, murmur2, partitionOfKey } from './partitioner.js';

// The hashes Apache Kafka's own test pins for `Utils.murmur2` (clients/.../utils/UtilsTest.java).
const JAVA_MURMUR2: [string, number][] = [
  ['21', -973932308],
  ['foobar', -790332482],
  ['a-little-bit-long-string', -985981536],
  ['a-little-bit-longer-string', -1486304829],
  ['lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8', -58897971],
  ['abc', 479470107],
];

// Key → partition for 1, 2, 3, 6 and 12 partitions, as the Java client's default partitioner (and
// kafkajs's, which every existing account was appended with) placed them: computed once with
// kafkajs 2.2.4's DefaultPartitioner and frozen here.
const COUNTS = [1, 2, 3, 6, 12] as const;
const KNOWN: [string, number[]][] = [
  ['3f2b8c4e-1a7d-4e2f-9b6a-0c5d8e7f1a2b', [0, 0, 0, 0, 6]],
  ['a1b2c3d4-e5f6-4711-8899-aabbccddeeff', [0, 0, 0, 0, 0]],
  ['00000000-0000-4000-8000-000000000000', [0, 1, 2, 5, 5]],
  ['d9428888-122b-41d6-b5a1-6c2c1f7d0e9a', [0, 1, 2, 5, 11]],
  ['7c9e6679-7425-40de-944b-e07fc1f90ae7', [0, 1, 2, 5, 5]],
  ['acct_1', [0, 1, 1, 1, 7]],
  ['merchant-42', [0, 1, 0, 3, 9]],
  ['foobar', [0, 0, 0, 0, 6]],
  ['überladen', [0, 0, 1, 4, 10]],
];

describe('murmur2', () => {
  it.each(JAVA_MURMUR2)('hashes %j as the Java client does', (key, hash) => {
    expect(murmur2(Buffer.from(key, 'utf8'))).toBe(hash);
  });
});

describe('partitionOfKey', () => {
  it.each(KNOWN)('places account %j where the Java client does', (key, partitions) => {
    expect(COUNTS.map((n) => partitionOfKey(key, n))).toEqual(partitions);
    const memo = memoPartitionOf();
    expect(COUNTS.map((n) => memo(key, n))).toEqual(partitions);
  });

  it('agrees with kafkajs DefaultPartitioner on 2,000 random account ids', () => {
    const kafkajs = Partitioners.DefaultPartitioner();
    const differ: string[] = [];
    for (let i = 0; i < 2000; i++) {
      const key = randomUUID();
      for (const n of COUNTS) {
        const partitionMetadata = Array.from({ length: n }, (_, partitionId) => ({
          partitionId,
          leader: 0,
          partitionErrorCode: 0,
          replicas: [0],
          isr: [0],
        }));
        const expected = kafkajs({ topic: 't', partitionMetadata, message: { key, value: null } });
        if (partitionOfKey(key, n) !== expected) differ.push(`${key}/${n}`);
      }
    }
    expect(differ).toEqual([]);
  });
});
