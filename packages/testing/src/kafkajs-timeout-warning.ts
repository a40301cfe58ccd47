/**
 * Drops the `TimeoutNegativeWarning` that kafkajs 2.2.4 makes Node (≥ 23) print once per process,
 * and only that warning, and only when kafkajs's request queue caused it.
 *
 * Where it comes from (`node --trace-warnings`): RequestQueue.scheduleCheckPendingRequests
 * (kafkajs/src/network/requestQueue/index.js:312) computes `this.throttledUntil - Date.now()`, and
 * `throttledUntil` is -1 ("not throttled") unless the broker asked for client-side throttling: the
 * delay is minus the epoch time in ms (-1,795,500,052,165 on 2026-11-24). It runs after every answer
 * of a broker connection with no request waiting, so `setTimeout` gets it with nothing to schedule;
 * Node has always clamped such a delay to 1 ms and only started to say so in Node 23. No request
 * timeout, retry or throttle is computed from it (those use `requestTimeout`, the retrier and
 * `throttledUntil > Date.now()`), and no setting we pass changes it: it is upstream's
 * tulios/kafkajs#1751 (fixes in open PRs #1755 and #1768, no release).
 *
 * Node warns about a negative delay once per process, and kafkajs's comes first in every process
 * that connects (on the first broker answer); dropping it hides nothing that was shown before. The
 * side effect it names is real but not a timing error: an idle connection re-runs its empty check
 * every 1 ms (tulios/kafkajs#1704): an idle connected producer set 4,624 timers in 5 s and used
 * 88 ms of CPU (1.8 % of a core) on the shared 2-core machine.
 */
let installed = false;

const SOURCE = /[\\/]kafkajs[\\/]src[\\/]network[\\/]requestQueue[\\/]/;

/** Installs the filter on `process.emitWarning` (once per process). */
export function ignoreKafkajsNegativeTimeoutWarning(): void {
  if (installed) return;
  installed = true;
  process.emitWarning = withoutKafkajsNegativeTimeout(process.emitWarning.bind(process));
}

/** `emit`, except for a TimeoutNegativeWarning whose call stack runs through kafkajs's request queue. */
export function withoutKafkajsNegativeTimeout(emit: typeof process.emitWarning): typeof process.emitWarning {
  return function (warning: string | Error, ...rest: unknown[]): void {
    const type =
      warning instanceof Error
        ? warning.name
        : typeof rest[0] === 'string'
          ? rest[0]
          : (rest[0] as { type?: string } | undefined)?.type;
    if (type === 'TimeoutNegativeWarning' && fromKafkajsRequestQueue()) return;
    (emit as (...a: unknown[]) => void)(warning, ...rest);
  };
}

function fromKafkajsRequestQueue(): boolean {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 30;
  try {
    return SOURCE.test(new Error().stack ?? '');
  } finally {
    Error.stackTraceLimit = limit;
  }
}
