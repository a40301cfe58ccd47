import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queueSyncTasks, relaySyncCommands } from '@holdfast/control-plane';
import {
  syncCommandSender,
  TransactionalAppender,
  type Appender,
  type OutgoingRecord,
  type RunningConsumer,
} from '@holdfast/kafka';
import { createTestEnv, type TestEnv, until } from '@holdfast/testing';
import type { RunningProjector } from '@holdfast/projections';
import {
  call,
  newAccount,
  readSide,
  startGateway,
  type AccountFixture,
  type TestGateway,
  runProjector,
  runSyncConsumer,
} from '@holdfast/testing/services';
import { SYNC_QUEUED_MESSAGE } from '../../src/routes/sync.js';

/** The gateway's real appender, with a switch: while `down`, every append fails as if Kafka were away. */
class SwitchedAppender implements Appender {
  down = false;
  constructor(private readonly real: Appender) {}
  append(records: readonly OutgoingRecord[]): Promise<void> {
    if (this.down) return Promise.reject(new Error('KafkaJSConnectionError: broker unreachable'));
    return this.real.append(records);
  }
  close(): Promise<void> {
    return this.real.close();
  }
}

let t: TestEnv;
let real: TransactionalAppender;
let appender: SwitchedAppender;
let gw: TestGateway;
let projector: RunningProjector;
let syncConsumer: RunningConsumer;
let acc: AccountFixture;
const { get } = readSide(() => gw);

const outboxOf = (taskId: string) =>
  t.db.selectFrom('control.sync_outbox').selectAll().where('task_id', '=', taskId).execute();

beforeAll(async () => {
  t = await createTestEnv('gw-sync-outbox');
  real = await TransactionalAppender.create(t.kafka, { name: `${t.topicPrefix}outbox`, size: 2 });
  appender = new SwitchedAppender(real);
  [gw, projector, syncConsumer] = await Promise.all([
    startGateway(t, { appender }),
    runProjector(t),
    runSyncConsumer(t),
  ]);
  acc = await newAccount(t);
});

afterAll(async () => {
  await syncConsumer?.stop();
  await projector?.stop();
  await gw?.close();
  await real?.close();
  await t?.close();
});

describe('sync tasks through the outbox: a task and its command cannot part', () => {
  let taskId: string;
  let command: Buffer;

  it('given Kafka fails between the task row and the append, when POST /ingest/sync, then the answer is the usual one and the task waits queued with its command in the outbox', async () => {
    appender.down = true;
    const r = await call(gw.url, 'POST', '/ingest/sync', { key: acc.key });
    expect(r.status).toBe(200);
    taskId = r.json.task_id;
    expect(r.json).toEqual({
      queued: true,
      task_id: taskId,
      status_url: `/ingest/sync/${taskId}`,
      message: SYNC_QUEUED_MESSAGE,
    });
    expect((await get(acc, `/ingest/sync/${taskId}`)).json.status).toBe('queued');
    const pending = await outboxOf(taskId);
    expect(pending).toHaveLength(1);
    expect(pending[0]!.account_id).toBe(acc.accountId);
    command = pending[0]!.command;
    // The relay's passes fail while Kafka is away; the command stays, its failures counted.
    await until(
      () => outboxOf(taskId),
      (rows) => (rows[0]?.attempts ?? 0) >= 1,
    );
    expect((await outboxOf(taskId))[0]!.last_error).toMatch(/broker unreachable/);
    // The throttle counts the task: it is queued, not lost.
    expect((await call(gw.url, 'POST', '/ingest/sync', { key: acc.key })).status).toBe(429);
  });

  it('given Kafka answers again, then the relay appends the command, empties the outbox and the task runs to done', async () => {
    appender.down = false;
    const done = await until(
      () => get(acc, `/ingest/sync/${taskId}`),
      (r) => r.json.status === 'done',
      30_000,
    );
    expect(done.json.task_id).toBe(taskId);
    expect(await outboxOf(taskId)).toEqual([]);
  });

  it('given the same command appended again (a relay that died before deleting its row), then the task is not recorded nor run twice', async () => {
    const before = await t.pool.query<{ finished_at: Date; started_at: Date }>(
      'select finished_at, started_at from control.sync_tasks where id = $1',
      [taskId],
    );
    await syncCommandSender(real, t.topicPrefix)([{ accountId: acc.accountId, command }]);
    // A later command of the same account lands behind the duplicate on the same partition: once its
    // task has run, the duplicate was consumed.
    const laterId = randomUUID();
    await queueSyncTasks(t.db, [{ id: laterId, accountId: acc.accountId }], 'cli', new Date(), (task) =>
      t.codec.encode('SyncRequested', {
        metadata: {
          account_id: task.accountId,
          event_id: randomUUID(),
          batch_id: null,
          request_id: null,
          key_id: null,
          received_at: new Date().toISOString(),
        },
        task_id: task.id,
        trigger: 'cli',
        barrier: null,
      }),
    );
    expect(
      await relaySyncCommands(t.db, syncCommandSender(real, t.topicPrefix), { taskIds: [laterId] }),
    ).toBe(1);
    await until(
      () => get(acc, `/ingest/sync/${laterId}`),
      (r) => r.json.status !== 'queued' && r.json.status !== 'running',
      30_000,
    );
    const { rows: work } = await t.pool.query<{ n: number }>(
      'select count(*)::int as n from recompute.sync_work where task_id = $1',
      [taskId],
    );
    expect(work[0]!.n).toBe(1);
    const after = await t.pool.query<{ finished_at: Date; started_at: Date }>(
      'select finished_at, started_at from control.sync_tasks where id = $1',
      [taskId],
    );
    expect(after.rows).toEqual(before.rows);
  });
});
