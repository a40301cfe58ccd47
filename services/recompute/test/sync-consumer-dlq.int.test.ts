// The sync consumer's share of the shared failure policy: an unreadable command is dead-lettered to
// holdfast.dlq (not dropped) and the valid command beside it runs.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SyncRequested } from '@holdfast/contracts';
import { createAccount } from '@holdfast/control-plane';
import {
  kafkaDeadLetterPublisher,
  TransactionalAppender,
  topicName,
  type RunningConsumer,
} from '@holdfast/kafka';
import { createTestEnv, readDeadLetters, type TestEnv } from '@holdfast/testing';
import { migrateRecompute } from '@holdfast/migrations';
import { startSyncConsumer } from '../src/sync-consumer.js';
import { DEFAULT_READ_MODEL_SCHEMA } from '@holdfast/read-models';

let t: TestEnv;
let appender: TransactionalAppender;
let consumer: RunningConsumer;
const ran: string[] = [];

beforeAll(async () => {
  t = await createTestEnv('syncdlq');
  await migrateRecompute(t.db as unknown as Kysely<unknown>);
  appender = await TransactionalAppender.create(t.kafka, { name: `${t.topicPrefix}syncdlq`, size: 1 });
  consumer = await startSyncConsumer(
    {
      infra: {
        databaseUrl: t.databaseUrl,
        kafkaBrokers: [],
        schemaRegistryUrl: '',
        topicPrefix: t.topicPrefix,
        partitions: 2,
      },
      readModelSchema: DEFAULT_READ_MODEL_SCHEMA,
    },
    {
      pool: t.pool,
      kafka: t.kafka,
      codec: t.codec,
      deadLetters: kafkaDeadLetterPublisher(appender, t.codec, t.topicPrefix),
      recompute: (task) => {
        ran.push(task.taskId);
        return Promise.resolve();
      },
    },
  );
});
afterAll(async () => {
  await consumer?.stop();
  await appender?.close();
  await t?.close();
});

describe('sync consumer poison policy', () => {
  it('dead-letters an unreadable command with its reason and runs the valid one beside it', async () => {
    const { id: accountId } = await createAccount(t.db, { name: 'Sync shop' });
    const taskId = randomUUID();
    await t.pool.query(
      `insert into control.sync_tasks (id, account_id, trigger, status, queued_at) values ($1, $2, 'api', 'queued', now())`,
      [taskId, accountId],
    );
    const value: SyncRequested = {
      metadata: {
        account_id: accountId,
        event_id: randomUUID(),
        batch_id: null,
        request_id: null,
        key_id: null,
        received_at: new Date().toISOString(),
      },
      task_id: taskId,
      trigger: 'api',
      barrier: null,
    };
    const topic = topicName(t.topicPrefix, 'holdfast.sync-commands');
    await appender.append([
      { topic, key: accountId, value: Buffer.from([0, 0, 0]) },
      { topic, key: accountId, value: t.codec.encode('SyncRequested', value) },
    ]);
    const dlq = await readDeadLetters(t);
    try {
      const deadline = Date.now() + 30_000;
      while ((!dlq.letters.length || !ran.includes(taskId)) && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 100));
      expect(ran).toContain(taskId);
      expect(dlq.letters).toEqual([
        {
          projection: 'recompute.sync-commands',
          topic: 'holdfast.sync-commands',
          partition: expect.any(Number) as number,
          offset: '0',
          reason: 'undecodable: not in the Confluent wire format',
        },
      ]);
    } finally {
      await dlq.close();
    }
  });
});
