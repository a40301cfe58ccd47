import type { Appender } from './appender.js';
import { topicName } from './topics.js';

/** A sync command as the outbox keeps it (structurally `PendingSyncCommand` of @holdfast/control-plane). */
export interface EncodedSyncCommand {
  readonly accountId: string;
  readonly command: Buffer;
}

/**
 * The outbox relay's `send`: appends encoded SyncRequested commands to holdfast.sync-commands, keyed
 * by account (so each queues behind its account's ingest), in one append (one Kafka transaction with
 * a TransactionalAppender: all or none).
 *
 * @example
 * const relay = startSyncOutboxRelay(db, syncCommandSender(appender, prefix), logger);
 */
export function syncCommandSender(
  appender: Pick<Appender, 'append'>,
  topicPrefix: string,
): (commands: readonly EncodedSyncCommand[]) => Promise<void> {
  const topic = topicName(topicPrefix, 'holdfast.sync-commands');
  return (commands) => appender.append(commands.map((c) => ({ topic, key: c.accountId, value: c.command })));
}
