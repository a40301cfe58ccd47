/**
 * Polls `fn` until `ok` holds; after `ms` it fails with the last value (or error). Errors count as
 * "not yet": what a test waits for (a table, a topic, a projected row) may not exist at first.
 * `until('the order row', () => read(), (r) => r.length === 1)` names what it waits for. When `ok` is
 * a type guard (`(r) => r !== undefined`), the value it resolves with has the narrowed type. The one
 * way tests wait (the dispatcher's `eventually` was folded into it).
 */
export function until<T, U extends T>(fn: () => Promise<T>, ok: (v: T) => v is U, ms?: number): Promise<U>;
export function until<T, U extends T>(
  what: string,
  fn: () => Promise<T>,
  ok: (v: T) => v is U,
  ms?: number,
): Promise<U>;
export function until<T>(fn: () => Promise<T>, ok: (v: T) => boolean, ms?: number): Promise<T>;
export function until<T>(what: string, fn: () => Promise<T>, ok: (v: T) => boolean, ms?: number): Promise<T>;
export async function until<T>(...args: unknown[]): Promise<T> {
  const named = typeof args[0] === 'string';
  const [what, fn, ok, ms = 60_000] = (named ? args : ['a condition', ...args]) as [
    string,
    () => Promise<T>,
    (v: T) => boolean,
    number | undefined,
  ];
  const deadline = Date.now() + ms;
  for (;;) {
    let last: string;
    try {
      const v = await fn();
      if (ok(v)) return v;
      last = JSON.stringify(v);
    } catch (err) {
      last = `error: ${(err as Error).message}`;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out after ${ms} ms waiting for ${what} (last: ${last})`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
