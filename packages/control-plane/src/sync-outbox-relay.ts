import type { Kysely } from 'kysely';
import type { Logger } from '@holdfast/platform';
import type { Database } from '@holdfast/postgres';
import { relaySyncCommands, type SendSyncCommands } from './sync-outbox.js';

export interface SyncOutboxRelayOptions {
  /** Between passes (default 2 s). */
  readonly intervalMs?: number;
  /** Commands younger than this are left to the process that queued them (default 5 s). */
  readonly olderThanMs?: number;
}

/** A running relay. */
export interface SyncOutboxRelay {
  /** Runs one pass now (tests, shutdown); resolves with the commands it appended. */
  pass(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * The outbox relay each gateway and recompute process runs: every `intervalMs`, appends the sync
 * commands left pending (`relaySyncCommands`: the process that queued them died, or Kafka was away
 * when it tried), until the outbox is empty. A failed pass is logged and tried again at the next
 * tick: the commands stay in PostgreSQL meanwhile, never lost.
 *
 * @example
 * const relay = startSyncOutboxRelay(db, send, logger);
 * ctx.onStop('sync_outbox_relay', () => relay.stop());
 */
export function startSyncOutboxRelay(
  db: Kysely<Database>,
  send: SendSyncCommands,
  logger: Logger,
  opts: SyncOutboxRelayOptions = {},
): SyncOutboxRelay {
  return startOutboxRelay(
    () => relaySyncCommands(db, send, { olderThanMs: opts.olderThanMs }),
    logger,
    'sync_outbox',
    opts,
  );
}

/**
 * The periodic loop of an outbox relay (`startSyncOutboxRelay`, `startSettingsOutboxRelay`): every
 * `intervalMs`, `relayOnce` until it relays nothing; one pass at a time; logged as `<name>_relayed`
 * (rows, when any; at `level`: a warning where relaying is the exception, as for sync commands) and
 * `<name>_relay_failed`.
 */
export function startOutboxRelay(
  relayOnce: () => Promise<number>,
  logger: Logger,
  name: string,
  opts: Pick<SyncOutboxRelayOptions, 'intervalMs'> & { readonly level?: 'info' | 'warn' } = {},
): SyncOutboxRelay {
  const intervalMs = opts.intervalMs ?? 2_000;
  let running: Promise<number> | null = null;
  let stopped = false;
  const pass = (): Promise<number> => {
    running ??= (async () => {
      let total = 0;
      try {
        for (;;) {
          const n = await relayOnce();
          total += n;
          if (n === 0 || stopped) break;
        }
        if (total > 0) logger[opts.level ?? 'warn'](`${name}_relayed`, { commands: total });
      } catch (err) {
        logger.error(`${name}_relay_failed`, { relayed: total, error: (err as Error).message });
      } finally {
        running = null;
      }
      return total;
    })();
    return running;
  };
  const timer = setInterval(() => void pass(), intervalMs);
  timer.unref();
  return {
    pass,
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
