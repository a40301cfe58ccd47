import { describeFailure } from '../failure/backoff.js';

/** A readiness check: resolves when ready, throws (ideally a NotReadyError) when not. */
export type ReadinessCheck = () => unknown;

/** "Not ready" with a reason that is safe to show on the ops port (no internal error text). */
export class NotReadyError extends Error {
  override readonly name = 'NotReadyError';
}

/** The answer of /readyz: each check `ok` or `failing: <reason>`. */
export interface ReadinessReport {
  readonly ready: boolean;
  readonly checks: Readonly<Record<string, string>>;
}

/**
 * The named checks behind /readyz: dependencies (PostgreSQL, Kafka, the registry) and the service's
 * own state (start-up finished, consumers joined and moving). Checks run in parallel, each bounded
 * by a timeout, on every request: readiness is never a cached guess.
 *
 * @example
 * const readiness = new Readiness();
 * readiness.add('postgres', () => pool.query('select 1'));
 * readiness.add('consumer', () => consumer.health.check());
 */
export class Readiness {
  private readonly checks = new Map<string, ReadinessCheck>();
  private starting: string | undefined = 'starting';
  private stopping = false;

  constructor(private readonly timeoutMs = 2_000) {}

  add(name: string, check: ReadinessCheck): this {
    this.checks.set(name, check);
    return this;
  }

  /** Start-up progress shown as the `startup` check until `started()` (e.g. "waiting for registry"). */
  phase(text: string): void {
    if (this.starting !== undefined) this.starting = text;
  }

  /** Start-up is over: the `startup` check passes from now on. */
  started(): void {
    this.starting = undefined;
  }

  /**
   * A stop has begun: from now on the report is `shutdown: failing: stopping` alone (the checks are no
   * longer run: their clients are being closed), so a balancer stops sending work at once.
   */
  stop(): void {
    this.stopping = true;
  }

  async report(): Promise<ReadinessReport> {
    if (this.stopping) return { ready: false, checks: { shutdown: 'failing: stopping' } };
    const checks: Record<string, string> = {};
    let ready = true;
    if (this.starting !== undefined) {
      checks.startup = `failing: ${this.starting}`;
      ready = false;
    }
    const names = [...this.checks.keys()];
    const results = await Promise.allSettled(names.map((n) => this.bounded(this.checks.get(n)!)));
    results.forEach((r, i) => {
      if (r.status === 'fulfilled') checks[names[i]!] = 'ok';
      else {
        ready = false;
        checks[names[i]!] = `failing: ${reasonOf(r.reason)}`;
      }
    });
    return { ready, checks };
  }

  private bounded(check: ReadinessCheck): Promise<unknown> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new NotReadyError('timed out')), this.timeoutMs);
    });
    return Promise.race([Promise.resolve().then(check), timeout]).finally(() => clearTimeout(timer));
  }
}

// Only our own reasons are shown as they are; a client library's message may carry internals
// (hosts, SQL), so it is reduced to the error's name and code.
function reasonOf(err: unknown): string {
  if (err instanceof NotReadyError) return err.message;
  const d = describeFailure(err);
  return d.code ? `${d.error} (${d.code})` : d.error;
}
