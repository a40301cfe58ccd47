// A Kafka transaction whose send spans two brokers while the leader of one partition dies, on a
// PRIVATE three-broker cluster (ports 19160-19165; never the shared broker). This is how the cluster
// run once lost an acknowledged batch with kafkajs 2.2.4 (docs/reliability.md): it kept the answers
// of the brokers that answered across the retries of one send and sent the retry only to brokers
// without one, so a partition whose leadership moved from the dead broker to a broker that had
// already answered was never written, and the transaction committed without it (kafkajs #1303). The
// client now (@platformatic/kafka) retries each destination's request on its own against fresh
// metadata; a send that fails anyway must fail retriably, so that TransactionalAppender aborts it and
// appends again on a fresh producer. Either course must leave every committed record in the log
// exactly once.
//
// The layout makes it happen every time: partition 0 led by broker X (replicas X, Z, Y), partition 1
// led by broker Y (replicas Y, X, Z), the transaction coordinator not on Y. Y is frozen (SIGSTOP)
// during a send; the controller fences it and gives partition 1 to X; X answers for partition 0
// while the request to Y hangs; then Y is SIGKILLed, its request fails, and the client retries
// partition 1 on X, which had already answered.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Kafka, logLevel } from 'kafkajs';
import {
  createKafka,
  partitionOfKey,
  type OutgoingRecord,
  type TransactionalProducer,
} from '@holdfast/kafka';
import { classifyError, silentLogger, type Logger } from '@holdfast/platform';
import { PrivateCluster } from '../bench/faults.js';

const PORT = 19_160;
const TOPIC = 'leader-failover';
/** transaction.state.log.num.partitions of the local cluster (infra/lib/kafka.mjs). */
const TX_STATE_PARTITIONS = 4;

let cluster: PrivateCluster | undefined;
let producer: TransactionalProducer | undefined;
let survivors: ReturnType<Kafka['admin']> | undefined;

beforeAll(async () => {
  cluster = await PrivateCluster.start(() => {}, PORT, 3);
});
afterAll(async () => {
  await producer?.close().catch(() => {});
  await survivors?.disconnect().catch(() => {});
  await cluster?.close();
});

/** HOLDFAST_TEST_VERBOSE=1 shows what the client logs. */
const consoleLogger: Logger = {
  debug: () => {},
  info: () => {},
  warn: (e, c) => console.log(new Date().toISOString(), 'WARN', e, JSON.stringify(c)?.slice(0, 300)),
  error: (e, c) => console.log(new Date().toISOString(), 'ERROR', e, JSON.stringify(c)?.slice(0, 300)),
  child: () => consoleLogger,
};

const logger = process.env.HOLDFAST_TEST_VERBOSE ? consoleLogger : silentLogger;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The partition of __transaction_state whose leader coordinates `transactionalId` (Kafka's rule). */
function coordinatorPartition(transactionalId: string): number {
  let h = 0;
  for (let i = 0; i < transactionalId.length; i++) h = (Math.imul(31, h) + transactionalId.charCodeAt(i)) | 0;
  return (h === -2147483648 ? 0 : Math.abs(h)) % TX_STATE_PARTITIONS;
}

/** A key the partitioner sends to `partition` of a two-partition topic. */
function keyFor(partition: number, prefix: string): string {
  for (let i = 0; ; i++) if (partitionOfKey(`${prefix}${i}`, 2) === partition) return `${prefix}${i}`;
}

describe('a transaction when a partition leader dies during a send spanning two brokers', () => {
  it(
    'never lets a send with a partition unwritten be committed: every committed record is stored once',
    { timeout: 300_000 },
    async () => {
      const brokers = cluster!.brokers.split(',');
      // The test's own view of the cluster (topic layout, leaders), through kafkajs directly.
      const inspect = new Kafka({ clientId: 'leader-failover-inspect', brokers, logLevel: logLevel.NOTHING });
      const admin = inspect.admin();
      await admin.connect();
      const leaders = async (topic: string) => {
        const { topics } = await admin.fetchTopicMetadata({ topics: [topic] });
        return new Map(topics[0]!.partitions.map((p) => [p.partitionId, p.leader]));
      };
      /** Leaders of `topic` once every partition has one (a new topic takes a moment on each broker). */
      const settled = async (topic: string) => {
        for (let i = 0; ; i++) {
          const found = await leaders(topic).catch(() => undefined);
          if (found?.size && [...found.values()].every((l) => l >= 0)) return found;
          if (i > 120) throw new Error(`${topic} has no leaders`);
          await sleep(250);
        }
      };
      const create = async (topic: Parameters<typeof admin.createTopics>[0]['topics'][number]) => {
        await admin.createTopics({ waitForLeaders: false, topics: [topic] });
        return settled(topic.topic);
      };
      try {
        const kafka = createKafka(brokers, 'leader-failover-test', logger);
        const transactionalId = 'leader-failover-tx';
        const open = () => kafka.transactionalProducer({ transactionalId, transactionTimeoutMs: 60_000 });
        // The producer may ask its id at creation; on a fresh cluster the coordinator may not be
        // ready yet (its first FindCoordinator creates __transaction_state): asked again, as the
        // services do at start (waitFor).
        for (const until = Date.now() + 60_000; !producer;) {
          producer = await open().catch((err: unknown) => {
            if (classifyError(err) !== 'retriable' || Date.now() > until) throw err;
            return sleep(500).then(() => undefined);
          });
        }
        // A first transaction creates __transaction_state and gives the id its coordinator.
        await create({ topic: 'warm-up', replicationFactor: 3 });
        const warm = await producer.transaction();
        await warm.send([{ topic: 'warm-up', key: 'k', value: Buffer.from('w') }], 30_000);
        await warm.commit();
        const coordinator = (await settled('__transaction_state')).get(
          coordinatorPartition(transactionalId),
        )!;
        // Y: the broker to lose (not the coordinator); X: the one partition 1 moves to.
        const y = [1, 2, 3].find((b) => b !== coordinator)!;
        const x = [1, 2, 3].find((b) => b !== y)!;
        const z = [1, 2, 3].find((b) => b !== y && b !== x)!;
        await create({
          topic: TOPIC,
          replicaAssignment: [
            { partition: 0, replicas: [x, z, y] },
            { partition: 1, replicas: [y, x, z] },
          ],
        });
        const keys = [keyFor(0, 'p0-'), keyFor(1, 'p1-')];
        const batch = (id: string, n = 200): OutgoingRecord[] =>
          Array.from({ length: n }, (_, i) => ({
            topic: TOPIC,
            key: keys[i % 2]!,
            value: Buffer.from(`${id}/${i}`),
          }));
        const commit = async (id: string) => {
          const tx = await producer!.transaction();
          await tx.send(batch(id), 30_000);
          await tx.commit();
        };
        // One transaction while all is well: the producer learns the leaders (X for 0, Y for 1).
        await commit('before');
        expect(await leaders(TOPIC)).toEqual(
          new Map([
            [0, x],
            [1, y],
          ]),
        );
        // From here on the test asks only the brokers that stay: a frozen seed broker answers nothing.
        survivors = new Kafka({
          clientId: 'leader-failover-inspect-2',
          brokers: brokers.filter((_, i) => i + 1 !== y),
          logLevel: logLevel.NOTHING,
          retry: { retries: 0 },
          requestTimeout: 2_000,
        }).admin();
        await survivors.connect();
        const leaderOf1 = async () => {
          const { topics } = await survivors!.fetchTopicMetadata({ topics: [TOPIC] });
          return topics[0]!.partitions.find((p) => p.partitionId === 1)!.leader;
        };

        // The transaction has both partitions before the freeze, so the send below goes straight to
        // the leaders (no AddPartitionsToTxn, which would wait for the frozen broker too).
        const tx = await producer.transaction();
        await tx.send(batch('during-first', 2), 30_000);
        cluster!.freeze(y);
        const sending = tx.send(batch('during'), 30_000).then(
          () => undefined,
          (err: Error) => err,
        );
        // The controller fences the silent broker (broker.session.timeout.ms, 9 s) and moves
        // partition 1 to X; X then answers for partition 0 (Y out of its in-sync replicas) while the
        // request to Y still hangs (30 s request timeout).
        const until = Date.now() + 25_000;
        while ((await leaderOf1().catch(() => undefined)) !== x && Date.now() < until) await sleep(250);
        await sleep(3_000);
        await cluster!.kill(y);
        const failure = await sending;
        let acknowledged: string[];
        if (failure === undefined) {
          await tx.commit();
          acknowledged = ['before', 'during-first', 'during'];
        } else {
          // The caller's course (TransactionalAppender): abort, then the whole append again on a
          // fresh producer under the same id, which fences the old one.
          expect(classifyError(failure)).toBe('retriable');
          await tx.abort().catch(() => {});
          await producer.close();
          producer = await open();
          await commit('during-again');
          acknowledged = ['before', 'during-again'];
        }
        await commit('after');
        acknowledged.push('after');

        // Every acknowledged record stored, each exactly once, as a read_committed consumer reads it.
        const consumer = kafka.groupConsumer({
          groupId: 'leader-failover-check',
          topics: [TOPIC],
          fromBeginning: true,
          sessionTimeoutMs: 10_000,
          heartbeatIntervalMs: 1_000,
        });
        // By log position: a consumer may be handed a record again (a rebalance while the group
        // coordinator moves), which says nothing about how often the log holds it.
        const positions = new Map<string, string>();
        await consumer.run(({ records }, { resolveOffset, commitResolved }) => {
          for (const r of records) positions.set(`${r.partition}/${r.offset}`, r.value!.toString());
          resolveOffset(records[records.length - 1]!.offset);
          return commitResolved();
        });
        const expected = acknowledged.flatMap((id) =>
          Array.from({ length: id === 'during-first' ? 2 : 200 }, (_, i) => `${id}/${i}`),
        );
        const deadline = Date.now() + 60_000;
        const counts = new Map<string, number>();
        const count = () => {
          counts.clear();
          for (const v of positions.values()) counts.set(v, (counts.get(v) ?? 0) + 1);
        };
        while ((count(), !counts.has('after/199')) && Date.now() < deadline) await sleep(250);
        await sleep(1_000);
        await consumer.stop();
        count();
        const missing = expected.filter((v) => !counts.has(v));
        const repeated = expected.filter((v) => (counts.get(v) ?? 0) > 1);
        expect({ missing: missing.length, first: missing[0] }).toEqual({ missing: 0, first: undefined });
        expect(repeated).toEqual([]);
        expect(counts.size).toBe(expected.length);
      } finally {
        await admin.disconnect();
      }
    },
  );
});
