// The topics as the broker holds them: created by ensureTopics with the retention of topicConfigs.
import { randomUUID } from 'node:crypto';
import { ConfigResourceTypes } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import { LOCAL_REPLICATION, TOPICS, ensureTopics, topicName } from './topics.js';

let t: TestEnv;
beforeAll(async () => {
  t = await createTestEnv('kafka-topics', { partitions: 1 });
});
afterAll(() => t?.close());

async function retentionMs(topic: string): Promise<string | undefined> {
  const admin = t.verifier.admin();
  await admin.connect();
  try {
    const d = await admin.describeConfigs({
      resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configNames: ['retention.ms'] }],
      includeSynonyms: false,
    });
    return d.resources[0]?.configEntries.find((e) => e.configName === 'retention.ms')?.configValue;
  } finally {
    await admin.disconnect();
  }
}

describe('ensureTopics', () => {
  it('creates holdfast.dlq with the dead-letter retention and the log topics with none', async () => {
    // A prefix of its own under the test's: these topics are created here, with 7 days.
    const prefix = `${t.topicPrefix}r${randomUUID().slice(0, 6)}.`;
    const admin = t.kafka.admin();
    await admin.connect();
    try {
      await ensureTopics(admin, prefix, 1, LOCAL_REPLICATION, { deadLetterDays: 7 });
      expect(await retentionMs(topicName(prefix, 'holdfast.dlq'))).toBe('604800000');
      expect(await retentionMs(topicName(prefix, 'holdfast.commerce'))).toBe('-1');
    } finally {
      await admin.deleteTopics(TOPICS.map((topic) => topicName(prefix, topic))).catch(() => {});
      await admin.disconnect();
    }
  });

  it("gives the test environment's holdfast.dlq the default 30 days", async () => {
    expect(await retentionMs(topicName(t.topicPrefix, 'holdfast.dlq'))).toBe(String(30 * 86_400_000));
  });
});
