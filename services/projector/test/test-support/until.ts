/** Polls `fn` until `ok` holds (errors count as "not yet"), or fails naming what it waited for. */
export async function until<T>(
  what: string,
  fn: () => Promise<T>,
  ok: (v: T) => boolean,
  ms = 60_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  let last: T | undefined;
  for (;;) {
    last = await fn().catch(() => undefined);
    if (last !== undefined && ok(last)) return last;
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what} (last: ${JSON.stringify(last)})`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
