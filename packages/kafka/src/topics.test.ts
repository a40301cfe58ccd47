import { describe, expect, it } from 'vitest';
import { LOCAL_REPLICATION, TOPICS, topicConfigs } from './topics.js';

describe('topicConfigs', () => {
  it('given holdfast.dlq, then it keeps records for the dead-letter retention, in milliseconds', () => {
    expect(topicConfigs('holdfast.dlq', LOCAL_REPLICATION, { deadLetterDays: 30 })['retention.ms']).toBe(
      String(30 * 86_400_000),
    );
    expect(topicConfigs('holdfast.dlq', LOCAL_REPLICATION, { deadLetterDays: 7 })['retention.ms']).toBe(
      '604800000',
    );
  });

  it.each(TOPICS.filter((t) => t !== 'holdfast.dlq'))(
    'given %s (the log), then it keeps records forever whatever the dead-letter retention',
    (topic) => {
      expect(
        topicConfigs(topic, { replicationFactor: 3, minInsyncReplicas: 2 }, { deadLetterDays: 7 }),
      ).toEqual({
        'min.insync.replicas': '2',
        'retention.ms': '-1',
        'retention.bytes': '-1',
        'cleanup.policy': 'delete',
        'max.message.bytes': String(32 * 1024 * 1024),
      });
    },
  );
});
