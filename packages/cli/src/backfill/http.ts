import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, fetch } from 'undici';

/** A backfill had to stop: `exitCode` 2 for a request the endpoint refuses (4xx), 1 for a failure. */
export class BackfillStop extends Error {
  override readonly name = 'BackfillStop';
  constructor(
    message: string,
    readonly exitCode: 1 | 2,
  ) {
    super(message);
  }
}

/** The run was interrupted (Ctrl-C) while a batch waited to be retried: not a failure of the batch. */
export class BackfillInterrupted extends BackfillStop {
  constructor() {
    super('interrupted', 1);
  }
}

/** What came back, once rate limits, 5xx and network errors have been retried away. */
export interface PostResult {
  readonly status: number;
  readonly text: string;
  readonly contentType: string;
}

export interface RetryCounters {
  rateLimited: number;
  serverErrors: number;
  networkErrors: number;
  requests: number;
  /** Milliseconds from sending each request to its full answer (every answered attempt). */
  latenciesMs: number[];
}

export interface SenderOptions {
  readonly key: string;
  readonly concurrency: number;
  /** Attempts after the first for 5xx and network errors. */
  readonly retries: number;
  readonly retryBaseMs: number;
  readonly timeoutMs: number;
  readonly signal: AbortSignal;
  readonly counters: RetryCounters;
  readonly onRetry: (what: string) => void;
}

const RETRY_CAP_MS = 30_000;
// A batch that keeps being rate limited means another client is spending the key's budget.
const MAX_RATE_LIMITED_PER_BATCH = 120;

/** Seconds (or an HTTP date) of a Retry-After header, in ms; 1 s when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number {
  if (!header) return 1000;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, 600_000);
  const at = Date.parse(header);
  return Number.isFinite(at) ? Math.min(Math.max(0, at - now), 600_000) : 1000;
}

/** Exponential backoff with jitter: between half and all of base·2^(attempt-1), capped. */
export function backoffMs(attempt: number, baseMs: number, random = Math.random): number {
  const ceiling = Math.min(RETRY_CAP_MS, baseMs * 2 ** (attempt - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/**
 * Posts bodies with keep-alive connections (undici), waiting out 429s (every sender pauses until the
 * Retry-After passes: the limit is per key) and retrying 5xx and network errors with backoff. That is
 * safe because ingest is idempotent on order_id: a batch whose answer was lost can be sent again.
 */
export class Sender {
  private readonly agent: Agent;
  private pausedUntil = 0;

  constructor(private readonly o: SenderOptions) {
    this.agent = new Agent({ connections: o.concurrency, keepAliveTimeout: 30_000, pipelining: 1 });
  }

  private async waitOut(ms: number): Promise<void> {
    if (ms <= 0) return;
    try {
      await sleep(ms, undefined, { signal: this.o.signal });
    } catch {
      throw new BackfillInterrupted();
    }
  }

  /** Sends one body to `url` until it gets an answer that is not a 429 or 5xx. */
  async post(url: string, body: Buffer, requestId: string): Promise<PostResult> {
    let failures = 0;
    let limited = 0;
    for (;;) {
      await this.waitOut(this.pausedUntil - Date.now());
      let problem: string;
      try {
        this.o.counters.requests += 1;
        const sentAt = performance.now();
        const res = await fetch(url, {
          method: 'POST',
          body,
          headers: {
            authorization: `Bearer ${this.o.key}`,
            'content-type': 'application/json',
            'x-request-id': requestId,
          },
          dispatcher: this.agent,
          signal: AbortSignal.timeout(this.o.timeoutMs),
        });
        const text = await res.text();
        this.o.counters.latenciesMs.push(performance.now() - sentAt);
        if (res.status === 429) {
          this.o.counters.rateLimited += 1;
          if (++limited > MAX_RATE_LIMITED_PER_BATCH)
            throw new BackfillStop(
              `still rate limited after ${limited - 1} waits; is another client using this key?`,
              1,
            );
          const wait = retryAfterMs(res.headers.get('retry-after'));
          this.pausedUntil = Math.max(this.pausedUntil, Date.now() + wait);
          this.o.onRetry(`rate limited (429): waiting ${Math.ceil(wait / 1000)}s`);
          continue;
        }
        if (res.status < 500)
          return { status: res.status, text, contentType: res.headers.get('content-type') ?? '' };
        this.o.counters.serverErrors += 1;
        problem = `${res.status} ${text.slice(0, 200)}`;
      } catch (err) {
        if (err instanceof BackfillStop) throw err;
        this.o.counters.networkErrors += 1;
        const cause = (err as { cause?: { code?: string; message?: string } }).cause;
        problem = `${(err as Error).message}${cause ? ` (${cause.code ?? cause.message})` : ''}`;
      }
      if (++failures > this.o.retries)
        throw new BackfillStop(`gave up after ${failures} attempts: ${problem}`, 1);
      if (this.o.signal.aborted) throw new BackfillInterrupted();
      const wait = backoffMs(failures, this.o.retryBaseMs);
      this.o.onRetry(`attempt ${failures} failed (${problem}); retrying in ${wait}ms`);
      await this.waitOut(wait);
    }
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}
