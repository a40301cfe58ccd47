/**
 * Watches the event loop: a timer that should fire every `intervalMs` measures how late it fires.
 * A loop blocked by synchronous work (or a stuck native call) shows as a growing lag.
 */
export class LoopMonitor {
  private lastTick = performance.now();
  private lastLagMs = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly intervalMs = 500) {
    this.timer = setInterval(() => {
      const now = performance.now();
      this.lastLagMs = Math.max(0, now - this.lastTick - this.intervalMs);
      this.lastTick = now;
    }, intervalMs);
    this.timer.unref();
  }

  /** The loop's current lag in ms: how late the last tick fired, or how overdue the next one is. */
  lagMs(): number {
    const overdue = performance.now() - this.lastTick - this.intervalMs;
    return Math.max(this.lastLagMs, overdue, 0);
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
