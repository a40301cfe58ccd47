import { backoffDelay, classifyError, describeFailure, sleep, type Logger } from '@holdfast/platform';
import type { ConsumerHealth } from './consumer-health.js';

export interface WatchdogOptions {
  readonly health: ConsumerHealth;
  /** A stall longer than this (no join, fetch or chunk; none in flight) triggers the watchdog. */
  readonly stallMs: number;
  readonly logger: Logger;
  /**
   * Replaces the stalled client consumer with a fresh one (the old one disconnected and retired).
   * Resolves once the new one runs; the watchdog bounds it by `stallMs`.
   */
  readonly recreate: () => Promise<void>;
  /** The consumer cannot be brought back in this process: exit non-zero, the supervisor restarts it. */
  readonly giveUp: (err: Error) => void;
  /** How often the stall is looked at (default stallMs / 10, at least 100 ms, at most 5 s). */
  readonly checkEveryMs?: number;
  /** One recreation that takes longer than this is a client wedged from the start (default stallMs). */
  readonly recreateTimeoutMs?: number;
  /**
   * One attempt at a chunk in flight longer than this is hung (default: never looked at). A chunk
   * cannot be cancelled from outside, so the watchdog gives up: the process exits, its supervisor
   * restarts it, and at-least-once delivery re-drives the chunk. The pools' client-side query
   * timeout normally ends an attempt on a dead connection long before (an error, then the retry).
   */
  readonly attemptMaxMs?: number;
}

/** The error `giveUp` receives. Not retriable within the process: a restart is the remedy. */
export class ConsumerStalledError extends Error {
  override readonly name = 'ConsumerStalledError';
  readonly isRetriable = false;
}

/**
 * Watches a consumer that neither joins, fetches nor applies anything (kafkajs has been seen to crash
 * with `restart: true` after a broker restart and then never come back, the process staying up).
 * On a stall it recreates the consumer: a recreation that fails retriably (the broker still away) is
 * tried again with backoff, the process staying up and not ready, since a restart would only wait for
 * the broker too. It gives up, so that the process exits and its supervisor restarts it, when a
 * recreation fails otherwise or hangs past `recreateTimeoutMs` (the fresh client is wedged as well),
 * or when the recreated consumer stalls again within `3 × stallMs`. Idle is not a stall: an idle
 * consumer keeps fetching. One attempt at a chunk in flight longer than `attemptMaxMs` is a hang: it
 * gives up at once. Client-agnostic: it only reads `ConsumerHealth`.
 *
 * @example
 * const dog = watchConsumer({ health, stallMs: 90_000, logger, recreate, giveUp: crash });
 * // on stop: dog.stop();
 */
export function watchConsumer(opts: WatchdogOptions): { stop(): void } {
  const { health, stallMs, logger, recreate, giveUp } = opts;
  const groupId = health.groupId;
  const every = opts.checkEveryMs ?? Math.min(5_000, Math.max(100, Math.floor(stallMs / 10)));
  const timeoutMs = opts.recreateTimeoutMs ?? stallMs;
  const stop = new AbortController();
  let recovering = false;
  let lastRecreate: number | undefined;
  const fail = (err: ConsumerStalledError) => {
    stop.abort();
    clearInterval(interval);
    giveUp(err);
  };
  /** One recreation, bounded: a hang is a ConsumerStalledError (not retried). */
  const attempt = async () => {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        recreate(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new ConsumerStalledError(`${groupId}: not recreated within ${timeoutMs} ms`)),
            timeoutMs,
          );
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  };
  const recover = async () => {
    for (let n = 0; !stop.signal.aborted; n++) {
      try {
        await attempt();
        lastRecreate = Date.now();
        logger.warn('consumer_recreated', { groupId, attempts: n + 1 });
        return;
      } catch (err) {
        if (stop.signal.aborted) return;
        if (err instanceof ConsumerStalledError || classifyError(err) !== 'retriable') {
          logger.error('consumer_recreate_failed', { groupId, ...describeFailure(err) });
          return fail(
            err instanceof ConsumerStalledError
              ? err
              : new ConsumerStalledError(`${groupId}: not recreated: ${(err as Error).message}`, {
                  cause: err,
                }),
          );
        }
        const delayMs = backoffDelay(n, { baseMs: 500, maxMs: 5_000 });
        logger.warn('consumer_recreate_retrying', {
          groupId,
          attempt: n + 1,
          delay_ms: delayMs,
          ...describeFailure(err),
        });
        await sleep(delayMs, stop.signal);
      }
    }
  };
  let lastCheck = Date.now();
  const check = async () => {
    const gap = Date.now() - lastCheck;
    lastCheck = Date.now();
    // A check that comes far too late means the event loop was blocked: nothing could fetch.
    if (gap > 2 * every + 1_000) health.onProcessPaused();
    const attemptMs = health.attemptInFlightMs();
    if (opts.attemptMaxMs !== undefined && attemptMs > opts.attemptMaxMs && !stop.signal.aborted) {
      logger.error('consumer_chunk_stuck', {
        groupId,
        in_flight_s: Math.round(attemptMs / 1000),
        action: 'exit',
      });
      return fail(new ConsumerStalledError(`${groupId}: one chunk in flight for ${attemptMs} ms`));
    }
    const stalled = health.stalledMs();
    if (recovering || stop.signal.aborted || stalled <= stallMs) return;
    const stalledS = Math.round(stalled / 1000);
    if (lastRecreate !== undefined && Date.now() - lastRecreate < 3 * stallMs) {
      logger.error('consumer_stalled', { groupId, stalled_s: stalledS, action: 'exit' });
      return fail(new ConsumerStalledError(`${groupId}: stalled again after being recreated`));
    }
    logger.error('consumer_stalled', { groupId, stalled_s: stalledS, action: 'recreate' });
    recovering = true;
    try {
      await recover();
    } finally {
      recovering = false;
    }
  };
  const interval = setInterval(() => void check(), every);
  interval.unref();
  return {
    stop: () => {
      stop.abort();
      clearInterval(interval);
    },
  };
}
