/**
 * Tells a poll in progress that new deliveries were enqueued. Without it a poll that waits beside a
 * slow receiver (a tarpit holding its in-flight cap) only claims again after its reclaim interval, so
 * every other tenant's new delivery waited up to a second behind it (the fairness benchmark: the
 * quiet tenant's median delivery latency went from 33 ms to 534 ms). A ring is remembered until
 * `take()`: one that arrives between a claim and the wait after it is not lost.
 *
 * @example
 * const bell = new Doorbell();
 * bell.ring();            // the consumer enqueued deliveries
 * bell.take();            // true: claim again instead of waiting
 * const off = bell.onRing(() => wakeUp());
 */
export class Doorbell {
  private rung = false;
  private readonly listeners = new Set<() => void>();

  ring(): void {
    this.rung = true;
    for (const l of [...this.listeners]) l();
  }

  /** Whether it rang since the last `take()`; clears it. */
  take(): boolean {
    const r = this.rung;
    this.rung = false;
    return r;
  }

  /** Calls `listener` at the next rings until the returned function is called. */
  onRing(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
