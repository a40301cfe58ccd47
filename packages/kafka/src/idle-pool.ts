/**
 * The free members of a fixed-size pool (the appenders' producers): `borrow` takes the most recently
 * returned one, or waits, first come first served, until one is given back.
 */
export class IdlePool<T> {
  private readonly idle: T[] = [];
  private readonly waiters: ((member: T) => void)[] = [];

  /** How many members are free now. */
  get size(): number {
    return this.idle.length;
  }

  borrow(): Promise<T> {
    const m = this.idle.pop();
    if (m !== undefined) return Promise.resolve(m);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Hands `member` to the longest waiting borrower, else keeps it free (also: adds a new member). */
  giveBack(member: T): void {
    const next = this.waiters.shift();
    if (next) next(member);
    else this.idle.push(member);
  }
}
