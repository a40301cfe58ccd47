import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '@holdfast/platform';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import { createKafka } from './client.js';
import { LogPositions, LogPositionTimeoutError } from './log-position.js';
import { topicName } from './topics.js';

let t: TestEnv;
let positions: LogPositions;

beforeAll(async () => {
  t = await createTestEnv('kafka-log-position', { partitions: 3 });
  positions = LogPositions.create(t.kafka, t.topicPrefix);
});
afterAll(async () => {
  await positions?.close();
  await t?.close();
});

describe('LogPositions', () => {
  it('names the partition a key is appended to and its high watermark, just past the acknowledged record', async () => {
    const topic = topicName(t.topicPrefix, 'holdfast.commerce');
    const producer = t.verifier.producer({ idempotent: true });
    await producer.connect();
    try {
      for (const key of [randomUUID(), randomUUID(), randomUUID(), randomUUID()]) {
        const [meta] = await producer.send({
          topic,
          acks: -1,
          messages: [
            { key, value: 'a' },
            { key, value: 'b' },
          ],
        });
        const at = await positions.ofKey('holdfast.commerce', key);
        expect(at).toEqual({
          topic: 'holdfast.commerce',
          partition: meta!.partition,
          offset: Number(meta!.baseOffset) + 2,
        });
      }
    } finally {
      await producer.disconnect();
    }
  });

  it('covers the records of an open transaction (read_uncommitted), which the last stable offset does not', async () => {
    const topic = topicName(t.topicPrefix, 'holdfast.commerce');
    const key = randomUUID();
    const producer = t.verifier.producer({
      transactionalId: `${t.topicPrefix}lp-${key}`,
      idempotent: true,
      maxInFlightRequests: 1,
    });
    await producer.connect();
    const admin = t.verifier.admin();
    await admin.connect();
    try {
      const before = await positions.ofKey('holdfast.commerce', key);
      const tx = await producer.transaction();
      await tx.send({ topic, acks: -1, messages: [{ key, value: 'x' }] });
      const during = await positions.ofKey('holdfast.commerce', key);
      expect(during.offset).toBe(before.offset + 1);
      const stable = (await admin.fetchTopicOffsets(topic)).find((p) => p.partition === before.partition);
      expect(Number(stable!.offset)).toBeLessThanOrEqual(before.offset);
      await tx.commit();
      const all = await positions.ofAll('holdfast.commerce');
      expect(all.map((p) => p.partition)).toEqual([0, 1, 2]);
      const both = await positions.ofKeys('holdfast.commerce', [key, key]);
      expect(both.map((p) => p.partition)).toEqual([before.partition, before.partition]);
      expect(both[0]!.offset).toBeGreaterThanOrEqual(all[before.partition]!.offset);
      // The data record and, once written, its commit marker.
      expect(all[before.partition]!.offset).toBeGreaterThanOrEqual(before.offset + 1);
    } finally {
      await admin.disconnect();
      await producer.disconnect();
    }
  });

  it('fails within its timeout, retriable, when no broker answers', async () => {
    // A closed port in this engineer's private range: nothing listens there.
    const nowhere = LogPositions.create(createKafka(['127.0.0.1:19251'], 'lp-test', silentLogger), '', {
      timeoutMs: 1_000,
    });
    const started = Date.now();
    const err = await nowhere.ofKey('holdfast.commerce', 'a').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LogPositionTimeoutError);
    expect((err as LogPositionTimeoutError).isRetriable).toBe(true);
    expect(Date.now() - started).toBeLessThan(3_000);
    await nowhere.close();
  });
});
