// The retry budget on the real stack: a statement that always exceeds statement_timeout (57014,
// retriable) ends in a dead letter after HOLDFAST_RETRY_BUDGET identical failures, not in an endless
// loop over the partition.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool, type Pool } from '@holdfast/postgres';
import { runExactlyOnce, type RunningConsumer } from '@holdfast/kafka';
import { silentLogger } from '@holdfast/platform';
import { createTestEnv, type TestEnv } from './test-env.js';

let t: TestEnv;
let pool: Pool;
let consumer: RunningConsumer | undefined;

beforeAll(async () => {
  t = await createTestEnv('retrybudget');
  pool = createPool(t.databaseUrl, 'retry-budget-under-test', 2, { statementTimeoutMs: 50 });
});
afterAll(async () => {
  await consumer?.stop();
  await pool?.end();
  await t?.close();
});

describe('runExactlyOnce: the retry budget', () => {
  it('given a record whose statement always exceeds statement_timeout, when consumed with a budget of 3, then it is handed back as exhausted after 3 identical failures, dead-lettered, and the next record is applied', async () => {
    const topic = `${t.topicPrefix}budget`;
    const admin = t.verifier.admin();
    await admin.connect();
    await admin.createTopics({ waitForLeaders: true, topics: [{ topic, numPartitions: 1 }] });
    await admin.disconnect();
    const producer = t.verifier.producer();
    await producer.connect();
    await producer.send({ topic, messages: [{ key: 'k', value: 'slow' }] });
    await producer.send({ topic, messages: [{ key: 'k', value: 'fast' }] });
    await producer.disconnect();

    const attempts: string[] = [];
    const deadLettered: { value: string; reason: string }[] = [];
    const applied: string[] = [];
    let exhaustedCount = 0;
    consumer = await runExactlyOnce({
      kafka: t.kafka,
      groupId: `${t.topicPrefix}budget`,
      topics: [topic],
      logger: silentLogger,
      chunkSize: 1,
      sessionTimeoutMs: 6_000,
      retryBackoff: { baseMs: 10, maxMs: 20 },
      retryBudget: 3,
      onRetryBudgetExhausted: () => exhaustedCount++,
      handler: async ({ records, retryBudgetExhausted }) => {
        const value = records[0]!.value!.toString();
        attempts.push(value);
        if (retryBudgetExhausted) {
          deadLettered.push({ value, reason: retryBudgetExhausted });
          return { kind: 'applied' };
        }
        await pool.query(value === 'slow' ? 'select pg_sleep(1)' : 'select 1');
        applied.push(value);
        return { kind: 'applied' };
      },
    });
    const deadline = Date.now() + 60_000;
    while (!applied.includes('fast') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));

    expect(applied).toEqual(['fast']);
    expect(deadLettered).toEqual([
      {
        value: 'slow',
        reason:
          'retries_exhausted: 3 identical failures (57014: canceling statement due to statement timeout)',
      },
    ]);
    // Three failures, then once more told to dead-letter; never a fifth attempt.
    expect(attempts).toEqual(['slow', 'slow', 'slow', 'slow', 'fast']);
    expect(exhaustedCount).toBe(1);
  });
});
