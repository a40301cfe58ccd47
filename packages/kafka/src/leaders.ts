import { classifyError, sleep as realSleep } from '@holdfast/platform';

/** Answers a broker gives while a topic it has just created is not yet served. */
const NOT_YET = new Set(['UNKNOWN_TOPIC_OR_PARTITION', 'LEADER_NOT_AVAILABLE']);

/** Whether a failed look at new topics' leaders may succeed later (not yet served, or retriable). */
export function leaderNotYet(err: unknown): boolean {
  const type = (err as { type?: unknown } | null)?.type;
  return (typeof type === 'string' && NOT_YET.has(type)) || classifyError(err) === 'retriable';
}

export interface LeaderWait {
  /** How long to keep asking, in ms (30 s: a just-started broker's controller may take that long). */
  readonly timeoutMs?: number;
  readonly intervalMs?: number;
  readonly now?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
}

/**
 * Calls `probe` (which fails until every partition of the new topics has a leader) until it
 * succeeds. A broker that has just started and created a topic may answer UNKNOWN_TOPIC_OR_PARTITION
 * for it for a while (a fresh clone's CI did), so those answers and every retriable failure are asked
 * again, for at most `timeoutMs`; any other failure, or the last one at the deadline, is thrown.
 *
 * @example
 * await waitForLeaders(() => admin.topicPartitions(['holdfast.orders']));
 */
export async function waitForLeaders(probe: () => Promise<unknown>, wait: LeaderWait = {}): Promise<void> {
  const { timeoutMs = 30_000, intervalMs = 200, now = Date.now, sleep = realSleep } = wait;
  const deadline = now() + timeoutMs;
  for (;;) {
    try {
      await probe();
      return;
    } catch (err) {
      if (!leaderNotYet(err) || now() >= deadline) throw err;
    }
    await sleep(intervalMs);
  }
}
