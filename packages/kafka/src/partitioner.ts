/**
 * Kafka's murmur2 (the Java client's `Utils.murmur2`, seed 0x9747b28c), over the key's bytes, as a
 * signed 32-bit integer. Every client Holdfast has used (kafkajs's default partitioner, the Java
 * producer) maps a key to `(murmur2(key) & 0x7fffffff) % partitions`; keeping exactly that keeps
 * every existing account on the partition that holds its history, whichever client appends.
 */
export function murmur2(data: Uint8Array): number {
  const m = 0x5bd1e995;
  const length = data.length;
  let h = 0x9747b28c ^ length;
  const whole = length & ~3;
  for (let i = 0; i < whole; i += 4) {
    let k = data[i]! | (data[i + 1]! << 8) | (data[i + 2]! << 16) | (data[i + 3]! << 24);
    k = Math.imul(k, m);
    k ^= k >>> 24;
    k = Math.imul(k, m);
    h = Math.imul(h, m) ^ k;
  }
  const rest = length & 3;
  if (rest > 0) {
    if (rest === 3) h ^= data[whole + 2]! << 16;
    if (rest >= 2) h ^= data[whole + 1]! << 8;
    h ^= data[whole]!;
    h = Math.imul(h, m);
  }
  h ^= h >>> 13;
  h = Math.imul(h, m);
  h ^= h >>> 15;
  return h | 0;
}

/**
 * The partition of `key` (UTF-8) among `partitions`: the Java client's default for keyed records.
 *
 * @example
 * partitionOfKey('21', 4); // (murmur2('21') & 0x7fffffff) % 4
 */
export function partitionOfKey(key: string | Uint8Array, partitions: number): number {
  const bytes = typeof key === 'string' ? Buffer.from(key, 'utf8') : key;
  return (murmur2(bytes) & 0x7fffffff) % partitions;
}

/**
 * `partitionOfKey`, memoised per (partition count, key). Every record of an account carries the same
 * key, so a backfill hashes the same key thousands of times; before this, the hashing (kafkajs's
 * murmur2 over 64-bit `Long` arithmetic) was ~8 % of the gateway's CPU in a backfill profile.
 *
 * @example
 * const partitionOf = memoPartitionOf();
 * partitionOf(accountId, 12);
 */
export function memoPartitionOf(): (key: string, partitions: number) => number {
  const memo = new Map<string, number>();
  return (key, partitions) => {
    const k = `${partitions}\u0000${key}`;
    let p = memo.get(k);
    if (p === undefined) {
      p = partitionOfKey(key, partitions);
      if (memo.size >= 100_000) memo.clear();
      memo.set(k, p);
    }
    return p;
  };
}
