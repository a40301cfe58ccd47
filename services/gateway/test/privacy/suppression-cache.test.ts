// The suppression cache's reads of the key generation: commerce ingest reads it per call (a new
// suppression applies at once), the pixel collector at most once a second (its requests are small
// and many), and a moved generation reloads the account's suppressions.
import { describe, expect, it } from 'vitest';
import type { Pool } from '@holdfast/postgres';
import { SuppressionCache } from '../../src/privacy/suppression-cache.js';

const ACCOUNT = 'acc-1';

function harness() {
  let generation = 1n;
  let rows: { kind: string; identifier_index: string }[] = [];
  const calls = { generation: 0, loads: 0 };
  let now = 0;
  const pool = {
    query: () => {
      calls.loads++;
      return Promise.resolve({ rows });
    },
  } as unknown as Pool;
  const cache = new SuppressionCache(
    pool,
    {
      indexKey: () => Promise.resolve(Buffer.alloc(32)),
      keyGeneration: () => {
        calls.generation++;
        return Promise.resolve(generation);
      },
      blindIndex: (_a, _k, kind, value) => `${kind}:${value}`,
    },
    5_000,
    () => now,
  );
  return {
    cache,
    calls,
    advance: (ms: number) => (now += ms),
    suppress: (index: string) => {
      rows = [...rows, { kind: 'anonymous_id', identifier_index: index }];
      generation++;
    },
  };
}

describe('SuppressionCache', () => {
  it('given many pixel requests within a second, when checked, then the key generation is read once', async () => {
    const h = harness();
    for (let i = 0; i < 50; i++) await h.cache.browserCheck(ACCOUNT);
    expect(h.calls).toEqual({ generation: 1, loads: 1 });
    h.advance(1_000);
    await h.cache.browserCheck(ACCOUNT);
    expect(h.calls.generation).toBe(2);
  });

  it('given commerce ingest, when checked twice, then each call reads the generation', async () => {
    const h = harness();
    await h.cache.check(ACCOUNT);
    await h.cache.check(ACCOUNT);
    expect(h.calls.generation).toBe(2);
  });

  it('given a browser suppressed after a check, when a second has passed, then the collector drops it', async () => {
    const h = harness();
    expect(await h.cache.browserCheck(ACCOUNT)).toBeUndefined();
    h.suppress('anonymous_id:anon-1');
    // Within the second: the generation is not read again (the documented window).
    expect(await h.cache.browserCheck(ACCOUNT)).toBeUndefined();
    h.advance(1_000);
    const check = await h.cache.browserCheck(ACCOUNT);
    expect(check?.('anon-1')).toBe(true);
    expect(check?.('anon-2')).toBe(false);
  });
});
