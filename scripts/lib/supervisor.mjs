// The restart policy `npm start` applies to its services, and the supervisor that applies it. Pure
// policy (`nextRestart`) and process handling (`supervise`) are apart so the policy is unit-tested.

/** 1 s, doubling up to 30 s; a run that lasted a minute counts as healthy and resets the backoff. */
export const DEFAULT_RESTART_POLICY = Object.freeze({
  initialMs: 1_000,
  maxMs: 30_000,
  resetAfterMs: 60_000,
});

/**
 * The delay before the next start of a service that just exited, and the consecutive-failure count
 * to carry. A service that stayed up at least `resetAfterMs` starts over at `initialMs`: one crash a
 * day is not a crash loop.
 *
 * @param {{ failures: number }} state consecutive quick exits so far (0 at first)
 * @param {number} uptimeMs how long the run that just ended lasted
 * @param {{ initialMs: number, maxMs: number, resetAfterMs: number }} policy
 * @returns {{ delayMs: number, state: { failures: number } }}
 */
export function nextRestart(state, uptimeMs, policy = DEFAULT_RESTART_POLICY) {
  const failures = uptimeMs >= policy.resetAfterMs ? 0 : state.failures;
  const delayMs = Math.min(policy.maxMs, policy.initialMs * 2 ** Math.min(failures, 30));
  return { delayMs, state: { failures: failures + 1 } };
}

/**
 * Keeps one service running: `start()` spawns it, and whenever it exits (unless `stop()` was called)
 * it is started again after `nextRestart`'s delay; every exit and restart is reported through `log`.
 * `stop()` sends SIGTERM (SIGKILL after `killAfterMs`) and resolves once the child is gone.
 *
 * @param {{
 *   name: string,
 *   start: () => import('node:child_process').ChildProcess,
 *   log: (message: string) => void,
 *   policy?: { initialMs: number, maxMs: number, resetAfterMs: number },
 *   now?: () => number,
 *   killAfterMs?: number,
 * }} opts
 */
export function supervise({
  name,
  start,
  log,
  policy = DEFAULT_RESTART_POLICY,
  now = Date.now,
  killAfterMs = 20_000,
}) {
  let state = { failures: 0 };
  let stopping = false;
  let timer;
  let child;
  let restarts = 0;
  let exited = Promise.resolve();

  const launch = () => {
    timer = undefined;
    const startedAt = now();
    const c = start();
    child = c;
    exited = new Promise((resolve) => {
      c.once('exit', (code, signal) => {
        resolve();
        if (stopping) return;
        const uptimeMs = now() - startedAt;
        const next = nextRestart(state, uptimeMs, policy);
        state = next.state;
        restarts++;
        log(
          `${name} exited (${signal ?? `code ${code}`}) after ${Math.round(uptimeMs / 100) / 10} s; ` +
            `restart #${restarts} in ${next.delayMs / 1000} s`,
        );
        timer = setTimeout(launch, next.delayMs);
      });
      // A spawn that fails (e.g. the entry point vanished) emits 'error' and then 'exit' (or only
      // 'error'): either way it is retried, never thrown into npm start.
      c.once('error', (err) => log(`${name} could not be started: ${err.message}`));
    });
  };
  launch();

  return {
    get child() {
      return child;
    },
    get restarts() {
      return restarts;
    },
    async stop() {
      stopping = true;
      if (timer) clearTimeout(timer);
      const c = child;
      if (c && c.exitCode === null && c.signalCode === null) {
        c.kill('SIGTERM');
        const hard = setTimeout(() => c.kill('SIGKILL'), killAfterMs);
        await exited;
        clearTimeout(hard);
      }
    },
  };
}
