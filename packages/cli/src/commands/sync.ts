import { randomUUID } from 'node:crypto';
import { EventCodec } from '@holdfast/contracts';
import { describeAccount, queueSyncTasks } from '@holdfast/db';
import { createKafka, ensureTopicsOf, LogPositions, topicName, TransactionalAppender } from '@holdfast/kafka';
import { CliError, type CliContext } from '../context.js';
import { accountOption, iso } from '../format.js';
import type { RegisterCommand } from './index.js';

/** Appends one SyncRequested record, trigger `cli` (keyed by account, so it queues behind that account's ingest). */
export async function appendSyncRequested(ctx: CliContext, accountId: string, taskId: string, now: Date) {
  const cfg = ctx.config();
  const codec = await EventCodec.connect(cfg.schemaRegistryUrl, { auth: cfg.registryAuth });
  const kafka = createKafka(
    cfg.kafkaBrokers,
    'holdfast-cli',
    ctx.logger(),
    cfg.kafkaSecurity,
    cfg.kafkaClient,
  );
  await ensureTopicsOf(kafka, cfg);
  // The barrier: the recompute waits until the read models hold what the log held now.
  const positions = LogPositions.create(kafka, cfg.topicPrefix);
  let barrier;
  try {
    barrier = [await positions.ofKey('holdfast.commerce', accountId)];
  } finally {
    await positions.close();
  }
  const appender = await TransactionalAppender.create(kafka, { name: 'holdfast-cli-sync', size: 1 });
  try {
    const value = codec.encode('SyncRequested', {
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
    await appender.append([
      { topic: topicName(cfg.topicPrefix, 'holdfast.sync-commands'), key: accountId, value },
    ]);
  } finally {
    await appender.close();
  }
}

/**
 * Queues a `cli` sync task of an existing account (`queueSyncTasks`: the row, then its command; a command
 * that cannot be appended leaves the task failed, `append_failed`) and says so if it could not.
 */
export async function queueCliSync(
  ctx: CliContext,
  accountId: string,
  what: string,
): Promise<{ id: string; queuedAt: Date }> {
  const db = await ctx.db();
  await describeAccount(db, accountId);
  const now = new Date();
  const task = { id: randomUUID(), accountId };
  const append = async () => {
    try {
      await appendSyncRequested(ctx, accountId, task.id, now);
    } catch (err) {
      throw new CliError(
        `could not append ${what} to Kafka (${(err as Error).message}); task ${task.id} is marked failed. ` +
          'Is the stack running (`npm start`)? Then run the command again.',
      );
    }
  };
  await queueSyncTasks(db, [task], 'cli', now, append);
  return { id: task.id, queuedAt: now };
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
        `Queued sync task ${task.id} for ${o.account}`,
      );
    });
};
