import { randomUUID } from 'node:crypto';
import { EventCodec } from '@holdfast/contracts';
import { describeAccount, queueSyncTasks, relaySyncCommands } from '@holdfast/control-plane';
import {
  createKafka,
  ensureTopicsOf,
  LogPositions,
  syncCommandSender,
  TransactionalAppender,
} from '@holdfast/kafka';
import { CliError, type CliContext } from '../context.js';
import { accountOption, iso } from '../format.js';
import type { RegisterCommand } from './index.js';

/** The SyncRequested command of a `cli` task, encoded, with the barrier read now (Kafka must answer). */
async function encodeSyncRequested(ctx: CliContext, accountId: string, taskId: string, now: Date) {
  const cfg = ctx.config();
  const codec = await EventCodec.connect(cfg.schemaRegistryUrl, { auth: cfg.registryAuth });
  const kafka = createKafka(cfg.kafkaBrokers, 'holdfast-cli', ctx.logger(), cfg.kafkaSecurity);
  await ensureTopicsOf(kafka, cfg);
  // The barrier: the recompute waits until the read models hold what the log held now.
  const positions = LogPositions.create(kafka, cfg.topicPrefix);
  let barrier;
  try {
    barrier = [await positions.ofKey('holdfast.commerce', accountId)];
  } finally {
    await positions.close();
  }
  const command = codec.encode('SyncRequested', {
    metadata: {
      account_id: accountId,
      event_id: randomUUID(),
      batch_id: null,
      request_id: null,
      key_id: null,
      received_at: now.toISOString(),
    },
    task_id: taskId,
    trigger: 'cli',
    barrier,
  });
  return { command, kafka, cfg };
}

/**
 * Queues a `cli` sync task of an existing account: reads the barrier (if Kafka cannot be reached,
 * nothing is queued and it says so), queues the task with its command in one transaction
 * (`queueSyncTasks`: the sync outbox), then appends the command. If that append fails the task stays
 * queued: the outbox relay of a running gateway or recompute appends it once Kafka answers (`relayed`
 * is false then, and the command warns).
 */
export async function queueCliSync(
  ctx: CliContext,
  accountId: string,
  what: string,
): Promise<{ id: string; queuedAt: Date; relayed: boolean }> {
  const db = await ctx.db();
  await describeAccount(db, accountId);
  const now = new Date();
  const task = { id: randomUUID(), accountId };
  let encoded;
  try {
    encoded = await encodeSyncRequested(ctx, accountId, task.id, now);
  } catch (err) {
    throw new CliError(
      `could not reach Kafka for ${what} (${(err as Error).message}); nothing was queued. ` +
        'Is the stack running (`npm start`)? Then run the command again.',
    );
  }
  await queueSyncTasks(db, [task], 'cli', now, () => encoded.command);
  let relayed = true;
  try {
    const appender = await TransactionalAppender.create(encoded.kafka, {
      name: 'holdfast-cli-sync',
      size: 1,
    });
    try {
      await relaySyncCommands(db, syncCommandSender(appender, encoded.cfg.topicPrefix), {
        taskIds: [task.id],
      });
    } finally {
      await appender.close();
    }
  } catch (err) {
    relayed = false;
    ctx.logger().warn('sync_command_left_in_outbox', { task_id: task.id, error: (err as Error).message });
  }
  return { id: task.id, queuedAt: now, relayed };
}

/** `holdfast sync --account ID`: queue a full analytics recompute (not throttled, unlike POST /ingest/sync). */
export const registerSync: RegisterCommand = (program, context) => {
  program
    .command('sync')
    .description('queue an analytics recompute for an account (prints the task id)')
    .addOption(accountOption())
    .action(async (o: { account: string }) => {
      const ctx = context();
      const task = await queueCliSync(ctx, o.account, 'the sync command');
      ctx.out(
        {
          task_id: task.id,
          account_id: o.account,
          status: 'queued',
          trigger: 'cli',
          queued_at: iso(task.queuedAt),
        },
        task.relayed
          ? `Queued sync task ${task.id} for ${o.account}`
          : `Queued sync task ${task.id} for ${o.account}; its command could not be appended yet and waits in the outbox (a running gateway or recompute appends it once Kafka answers)`,
      );
    });
};
