import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kafkaDeadLetterPublisher, topicName, TransactionalAppender } from '@holdfast/kafka';
import { countTopicRecords } from './dead-letter-reader.js';
import { createTestEnv, type TestEnv } from './test-env.js';

let t: TestEnv;
let appender: TransactionalAppender;

beforeAll(async () => {
  t = await createTestEnv('dlq-count');
  appender = await TransactionalAppender.create(t.kafka, { name: `${t.topicPrefix}dlq-count`, size: 1 });
});

afterAll(async () => {
  await appender?.close();
  await t?.close();
});

const letter = (offset: string) => ({
  projection: 'commerce',
  topic: 'holdfast.commerce',
  partition: 0,
  offset,
  key: Buffer.from('acct'),
  value: Buffer.from('not avro'),
  timestamp: '0',
  reason: 'undecodable',
});

describe('countTopicRecords on holdfast.dlq (read apart from the dead-letter table)', () => {
  it('given a topic never written to, then 0', async () => {
    expect(await countTopicRecords(t.verifier, topicName(t.topicPrefix, 'holdfast.dlq'))).toBe(0);
  });

  it('given an aborted transaction on the topic, then its records are not counted', async () => {
    const producer = t.verifier.producer({ transactionalId: `${t.topicPrefix}dlq-abort`, idempotent: true });
    await producer.connect();
    const tx = await producer.transaction();
    await tx.send({ topic: topicName(t.topicPrefix, 'holdfast.dlq'), messages: [{ key: 'a', value: 'x' }] });
    await tx.abort();
    await producer.disconnect();
    expect(
      await countTopicRecords(t.verifier, topicName(t.topicPrefix, 'holdfast.dlq'), { maxMs: 8_000 }),
    ).toBe(0);
  });

  it('given two letters published as the projector publishes them, then 2', async () => {
    await kafkaDeadLetterPublisher(appender, t.codec, t.topicPrefix).publish([letter('1'), letter('2')]);
    expect(await countTopicRecords(t.verifier, topicName(t.topicPrefix, 'holdfast.dlq'))).toBe(2);
  });
});
