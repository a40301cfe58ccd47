// The dispatcher's share of the shared failure policy: a record that can never be read is
// dead-lettered (not dropped) while the valid ones are delivered; PostgreSQL connections terminated
// under it cost nothing; /metrics has the group's lag and the webhook backlog.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, createWebhookSubscription } from '@holdfast/control-plane';
import { registerConsumerLag, TransactionalAppender, topicName } from '@holdfast/kafka';
import { createMetricsRegistry } from '@holdfast/platform';
import {
  createTestEnv,
  readDeadLetters,
  type TestEnv,
  campaignSent,
  startScriptedReceiver,
  until,
  type ScriptedReceiver,
} from '@holdfast/testing';
import { DispatcherMetrics } from '../src/metrics.js';
import { startDispatcher, type RunningDispatcher } from '../src/start-dispatcher.js';

let t: TestEnv;
let dispatcher: RunningDispatcher;
let appender: TransactionalAppender;
let receiver: ScriptedReceiver;
const registry = createMetricsRegistry('dispatcher-test');

beforeAll(async () => {
  t = await createTestEnv('dispresilience');
  receiver = await startScriptedReceiver([500]); // every attempt fails: deliveries stay in the backlog
  appender = await TransactionalAppender.create(t.kafka, { name: `${t.topicPrefix}disp-res`, size: 1 });
  const metrics = new DispatcherMetrics(registry);
  metrics.watchBacklog(registry, t.pool);
  dispatcher = await startDispatcher(
    { topicPrefix: t.topicPrefix, pollIntervalMs: 100, timeoutMs: 2_000, sessionTimeoutMs: 6_000 },
    { pool: t.pool, kafka: t.kafka, codec: t.codec, metrics },
  );
  registerConsumerLag(registry, [dispatcher.lag]);
});
afterAll(async () => {
  await dispatcher?.stop();
  await appender?.close();
  await receiver?.close();
  await t?.close();
});

const topic = () => topicName(t.topicPrefix, 'holdfast.campaigns');

describe('dispatcher failure policy on the real stack', () => {
  it('dead-letters an unreadable campaign record to holdfast.dlq and delivers the valid one beside it', async () => {
    const { id: accountId } = await createAccount(t.db, { name: 'Resilient shop' });
    await createWebhookSubscription(t.db, accountId, receiver.url);
    const sent = campaignSent(accountId);
    await appender.append([
      { topic: topic(), key: accountId, value: Buffer.from('not avro at all') },
      { topic: topic(), key: accountId, value: t.codec.encode('CampaignSent', sent) },
    ]);
    await until(
      'the delivery',
      () => Promise.resolve(receiver.requests.length),
      (n) => n > 0,
      30_000,
    );
    expect(JSON.parse(receiver.requests[0]!.body)).toMatchObject({ data: { tracking_id: sent.tracking_id } });
    const dlq = await readDeadLetters(t);
    try {
      const [letter] = await until(
        'the dead letter',
        () => Promise.resolve(dlq.letters),
        (ls) => ls.length > 0,
        30_000,
      );
      expect(letter).toMatchObject({
        projection: 'dispatcher.deliveries',
        topic: 'holdfast.campaigns',
        offset: '0',
      });
      expect(letter!.reason).toMatch(/^undecodable: /);
    } finally {
      await dlq.close();
    }
  });

  it('rides out pg_terminate_backend of its connections: the next record is enqueued and attempted', async () => {
    const { rows } = await t.pool.query<{ n: number }>(
      `select count(pg_terminate_backend(pid))::int as n from pg_stat_activity
        where datname = $1 and pid <> pg_backend_pid()`,
      [t.name],
    );
    expect(rows[0]!.n).toBeGreaterThan(0);
    const { id: accountId } = await createAccount(t.db, { name: 'After the blip' });
    await createWebhookSubscription(t.db, accountId, receiver.url);
    const sent = campaignSent(accountId);
    await appender.append([{ topic: topic(), key: accountId, value: t.codec.encode('CampaignSent', sent) }]);
    await until(
      'the delivery after the outage',
      () => Promise.resolve(receiver.requests.some((r) => r.body.includes(sent.tracking_id))),
      (found) => found,
      60_000,
    );
    expect(() => dispatcher.health.check(60_000)).not.toThrow();
  });

  it('/metrics: consumer lag of its group, the webhook backlog and the age of the oldest undelivered delivery', async () => {
    const text = await until(
      'the consumer lag metric',
      () => registry.metrics(),
      (body) => body.includes('holdfast_consumer_lag_records{group='),
      30_000,
    );
    expect(text).toContain(
      `holdfast_consumer_lag_records{group="${t.topicPrefix}holdfast.dispatcher",topic="${topic()}",partition="0"`,
    );
    expect(text).toMatch(/holdfast_webhook_backlog_deliveries\{service="dispatcher-test"\} 2\n/);
    const age =
      /holdfast_webhook_oldest_undelivered_age_seconds\{service="dispatcher-test"\} ([\d.e+-]+)/.exec(text);
    expect(Number(age![1])).toBeGreaterThan(0);
  });
});
