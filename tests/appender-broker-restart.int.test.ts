// The transactional appender (packages/kafka, appender.ts) across a broker SIGKILL and restart, on a
// PRIVATE broker (never the shared one): appends keep arriving while the broker dies and returns. A
// transaction left open by the crash used to make the next ones on the same producer fail with
// kafkajs's "concurrent operation on the same transaction" (CONCURRENT_TRANSACTIONS) after the
// broker's return, answered 500 by the gateway. Now the appender fences the producer (a fresh one
// under the same transactional id aborts what was left open) and retries the whole transaction
// internally: once the broker answers again, appends succeed, and every acknowledged one is read
// exactly once by a read_committed consumer. Runs with the client under test (@holdfast/kafka).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKafka, TransactionalAppender, type KafkaClient } from '@holdfast/kafka';
import { silentLogger } from '@holdfast/platform';
import { PrivateBroker } from '../bench/faults.js';

let broker: PrivateBroker;
let kafka: KafkaClient;
let appender: TransactionalAppender | undefined;

beforeAll(async () => {
  // 19152-19153: fixed ports outside every other test's (the restarted broker must come back on its port).
  broker = await PrivateBroker.start(() => {}, 19_152);
  kafka = createKafka([broker.brokers], 'appender-restart-test', silentLogger);
});
afterAll(async () => {
  await appender?.close();
  await broker?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('TransactionalAppender across a broker SIGKILL and restart', () => {
  it(
    'answers every append once the broker is back, each acknowledged one stored exactly once',
    { timeout: 300_000 },
    async () => {
      const topic = 'appender-restart';
      const admin = kafka.admin();
      await admin.connect();
      await admin.createTopics([{ topic, partitions: 4, replicationFactor: 1, configs: {} }]);
      await admin.disconnect();
      appender = await TransactionalAppender.create(kafka, {
        name: 'restart-test',
        size: 2,
        transactionTimeoutMs: 60_000,
      });
      const acked: string[] = [];
      const lastAckAt = [0, 0]; // per stream
      const failures: { at: number; error: string }[] = [];
      let backAt = Infinity;
      let stop = false;
      // Two streams of appends of 50 records, as two concurrent requests would.
      const stream = async (s: number) => {
        for (let n = 0; !stop; n++) {
          const id = `${s}-${n}`;
          try {
            await appender!.append(
              Array.from({ length: 50 }, (_, i) => ({
                topic,
                key: `k${(n + i) % 7}`,
                value: Buffer.from(`${id}/${i}`),
              })),
            );
            acked.push(id);
            lastAckAt[s] = Date.now();
          } catch (err) {
            // The protocol errors inside a client's aggregate error (e.g. @platformatic/kafka's
            // ResponseError) say what the broker answered.
            const inner = ((err as { errors?: { apiId?: string }[] }).errors ?? []).map((e) => e.apiId);
            failures.push({ at: Date.now(), error: [(err as Error).message, ...inner].join(' ') });
            await sleep(200);
          }
        }
      };
      const streams = [stream(0), stream(1)];
      // Appends flow (the first may take seconds on a loaded machine), then the kill lands mid-stream.
      const flowing = Date.now() + 60_000;
      while (acked.length === 0 && Date.now() < flowing) await sleep(100);
      expect(acked.length).toBeGreaterThan(0);
      await sleep(1_000);
      await broker.kill();
      await sleep(3_000);
      await broker.restart();
      backAt = Date.now();
      // Wait (not a fixed 40 s) until both streams have an append acknowledged after the broker's
      // return, which must come within 30 s of it; then keep appending for a while: from then on no
      // append may fail, and appends go on being acknowledged.
      while (lastAckAt.some((at) => at <= backAt) && Date.now() < backAt + 60_000) await sleep(100);
      const recoveredAt = Date.now();
      const before = acked.length;
      await sleep(5_000);
      stop = true;
      await Promise.all(streams);
      expect(recoveredAt - backAt, JSON.stringify(failures.slice(-5))).toBeLessThan(30_000);
      const lateFailures = failures.filter((f) => f.at > recoveredAt);
      expect(lateFailures, JSON.stringify(failures.slice(-5))).toEqual([]);
      expect(acked.length).toBeGreaterThan(before);
      expect(failures.filter((f) => /concurrent operation/.test(f.error))).toEqual([]);

      // Every acknowledged append stored whole and once.
      const consumer = kafka.groupConsumer({
        groupId: 'appender-restart-check',
        topics: [topic],
        fromBeginning: true,
        sessionTimeoutMs: 10_000,
        heartbeatIntervalMs: 1_000,
      });
      const seen = new Map<string, number>();
      await consumer.run(({ records }, { resolveOffset, commitResolved }) => {
        for (const r of records) {
          const v = r.value!.toString();
          seen.set(v, (seen.get(v) ?? 0) + 1);
        }
        resolveOffset(records[records.length - 1]!.offset);
        return commitResolved();
      });
      const expected = acked.length * 50;
      const deadline = Date.now() + 60_000;
      while ([...acked].some((id) => !seen.has(`${id}/49`)) && Date.now() < deadline) await sleep(250);
      await consumer.stop();
      for (const id of acked)
        for (let i = 0; i < 50; i++) expect(seen.get(`${id}/${i}`), `${id}/${i}`).toBe(1);
      console.log(
        `acked ${acked.length} appends (${expected} records), ${failures.length} failed attempts, first: ${failures[0]?.error}`,
      );
    },
  );
});
