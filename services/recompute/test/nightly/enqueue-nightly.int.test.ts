import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, relaySyncCommands } from '@holdfast/control-plane';
import type { SyncTasksTable } from '@holdfast/postgres';
import type { Selectable } from 'kysely';
import {
  LogPositions,
  syncCommandSender,
  topicName,
  TransactionalAppender,
  type Appender,
  type RunningConsumer,
} from '@holdfast/kafka';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import { scoreTaskAccount } from '../../src/scoring/recompute-account.js';
import { insertOrders, prepareSchemas, simulatedOrders } from '../scoring/testing/read-model-fixture.js';
import { eventually } from '../scoring/testing/processes.js';
import { startSyncConsumer } from '../../src/sync-consumer.js';
import { enqueueNightly, nightlyTaskId } from '../../src/nightly/enqueue-nightly.js';
import { scheduleNightly, type Scheduler } from '../../src/nightly/nightly-schedule.js';
import { DEFAULT_READ_MODEL_SCHEMA } from '@holdfast/read-models';

let t: TestEnv;
let appender: TransactionalAppender;
let consumer: RunningConsumer;
let positions: LogPositions;

beforeAll(async () => {
  t = await createTestEnv('recompute-nightly');
  await prepareSchemas(t);
  appender = await TransactionalAppender.create(t.kafka, { name: `${t.topicPrefix}nightly`, size: 1 });
  positions = LogPositions.create(t.kafka, t.topicPrefix);
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
      recompute: scoreTaskAccount({ pool: t.pool, readModelSchema: DEFAULT_READ_MODEL_SCHEMA }),
    },
  );
});
afterAll(async () => {
  await consumer?.stop();
  await appender?.close();
  await positions?.close();
  await t?.close();
});

/** A scheduler the test fires by hand, with the time node-cron would pass. */
function manualScheduler() {
  let job: ((firedAt: Date) => Promise<void>) | undefined;
  const scheduler: Scheduler = {
    schedule(_expression, _timezone, j) {
      job = j;
      return { stop: () => Promise.resolve() };
    },
  };
  return { scheduler, fire: (at: Date) => job!(at) };
}

type TaskRow = Pick<Selectable<SyncTasksTable>, 'id' | 'account_id' | 'status' | 'trigger' | 'reason'>;

describe('the nightly run', () => {
  it('given three accounts, when 02:00 UTC fires, then each gets one nightly task that the sync consumer runs to done, and the accounts with orders are scored', async () => {
    const firedAt = new Date('2026-11-22T02:00:00.000Z');
    const accounts = [];
    for (const name of ['A', 'B', 'C'])
      accounts.push((await createAccount(t.db, { name: `nightly ${name}` })).id);
    const [a, b, c] = accounts as [string, string, string];
    await insertOrders(t, a, simulatedOrders(50, new Date(), 1).orders);
    await insertOrders(t, b, simulatedOrders(400, new Date(), 5).orders);

    const queued: unknown[] = [];
    const clock = manualScheduler();
    scheduleNightly({
      scheduler: clock.scheduler,
      run: async (at) => {
        const outcome = await enqueueNightly(
          { pool: t.pool, appender, codec: t.codec, topicPrefix: t.topicPrefix, positions },
          at,
        );
        queued.push(outcome);
        return outcome;
      },
    });
    await clock.fire(firedAt);
    expect(queued).toEqual([{ accounts: 3, queued: 3 }]);
    // A second recompute process firing at the same 02:00 queues nothing more.
    expect(
      await enqueueNightly(
        { pool: t.pool, appender, codec: t.codec, topicPrefix: t.topicPrefix, positions },
        firedAt,
      ),
    ).toEqual({
      accounts: 3,
      queued: 0,
    });

    const tasks = await eventually('every nightly task to finish', async () => {
      const { rows } = await t.pool.query<TaskRow>(
        `select id, account_id, status, trigger, reason from control.sync_tasks where trigger = 'nightly' order by account_id`,
      );
      return rows.length === 3 && rows.every((r) => ['done', 'failed', 'skipped'].includes(r.status))
        ? rows
        : undefined;
    });
    expect(tasks).toEqual(
      [...accounts].sort().map((id) => ({
        id: nightlyTaskId(id, firedAt),
        account_id: id,
        status: 'done',
        trigger: 'nightly',
        reason: null,
      })),
    );
    const { rows: scored } = await t.pool.query<{ account_id: string; n: number; model: string }>(
      `select account_id, count(*)::int as n, min(model) as model from analytics.customer_scores group by account_id`,
    );
    const byAccount = new Map(scored.map((r) => [r.account_id, r]));
    expect(byAccount.get(a)).toMatchObject({ n: 50, model: 'heuristic' });
    expect(byAccount.get(b)).toMatchObject({ n: 400, model: 'bgnbd-gg' });
    expect(byAccount.has(c)).toBe(false);
  });

  it('given the sync commands cannot be appended, then the night’s tasks stay queued with their commands in the outbox, and a relay pass appends them once Kafka answers', async () => {
    const account = (await createAccount(t.db, { name: `nightly broken ${randomUUID().slice(0, 4)}` })).id;
    const broken: Appender = {
      append: () => Promise.reject(new Error('broker unreachable')),
      close: () => Promise.resolve(),
    };
    const firedAt = new Date('2026-11-23T02:00:00.000Z');
    await expect(
      enqueueNightly(
        { pool: t.pool, appender: broken, codec: t.codec, topicPrefix: t.topicPrefix, positions },
        firedAt,
      ),
    ).rejects.toThrow('broker unreachable');
    const { rows } = await t.pool.query<{ status: string; reason: string }>(
      `select status, reason from control.sync_tasks where id = $1`,
      [nightlyTaskId(account, firedAt)],
    );
    expect(rows).toEqual([{ status: 'queued', reason: null }]);
    const taskId = nightlyTaskId(account, firedAt);
    const pending = await t.db.selectFrom('control.sync_outbox').select('task_id').execute();
    expect(pending.map((p) => p.task_id)).toContain(taskId);
    const relayed = await relaySyncCommands(t.db, syncCommandSender(appender, t.topicPrefix), {
      olderThanMs: 0,
    });
    expect(relayed).toBeGreaterThanOrEqual(1);
    expect(await t.db.selectFrom('control.sync_outbox').select('task_id').execute()).toEqual([]);
  });

  it('gives each nightly task the log as of 02:00 as its barrier, and runs it once the projector has passed it', async () => {
    const account = (await createAccount(t.db, { name: `nightly barrier ${randomUUID().slice(0, 4)}` })).id;
    const commerce = topicName(t.topicPrefix, 'holdfast.commerce');
    const producer = t.verifier.producer();
    await producer.connect();
    await producer.send({ topic: commerce, messages: [1, 2, 3].map(() => ({ key: account, value: 'x' })) });
    await producer.disconnect();
    const at = await positions.ofKey('holdfast.commerce', account);
    expect(at.offset).toBeGreaterThanOrEqual(3);

    const firedAt = new Date('2026-11-24T02:00:00.000Z');
    await enqueueNightly(
      { pool: t.pool, appender, codec: t.codec, topicPrefix: t.topicPrefix, positions },
      firedAt,
    );
    const id = nightlyTaskId(account, firedAt);
    const work = await eventually('the command to be recorded', async () => {
      const { rows } = await t.pool.query<{ barrier: unknown }>(
        `select barrier from recompute.sync_work where task_id = $1`,
        [id],
      );
      return rows[0];
    });
    expect(work.barrier).toEqual([at]);
    // No projector has read those three records: the task waits, queued.
    await new Promise((r) => setTimeout(r, 1_500));
    const status = async () =>
      (await t.pool.query<{ status: string }>(`select status from control.sync_tasks where id = $1`, [id]))
        .rows[0]!.status;
    expect(await status()).toBe('queued');
    // The projector's group moves past them (as it does once their read-model transaction commits).
    const admin = t.verifier.admin();
    await admin.connect();
    await admin.setOffsets({
      groupId: `${t.topicPrefix}holdfast.projector`,
      topic: commerce,
      partitions: [{ partition: at.partition, offset: String(at.offset) }],
    });
    await admin.disconnect();
    await eventually('the nightly task to run', async () => ((await status()) === 'done' ? true : undefined));
  });

  it('names each account’s nightly task after the account and the UTC day, the same in every process', () => {
    const account = '6f1d3c2a-8b7e-4f0c-9a5d-2e1b3c4d5e6f';
    const id = nightlyTaskId(account, new Date('2026-11-22T02:00:00Z'));
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(nightlyTaskId(account, new Date('2026-11-22T02:00:59Z'))).toBe(id);
    expect(nightlyTaskId(account, new Date('2026-11-23T02:00:00Z'))).not.toBe(id);
  });
});
