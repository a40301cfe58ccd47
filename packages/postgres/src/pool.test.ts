import { describe, expect, it } from 'vitest';
import { clientQueryTimeoutMs, QUERY_TIMEOUT_MARGIN_MS } from './pool.js';

describe('clientQueryTimeoutMs', () => {
  it.each([
    [30_000, 30_000 + QUERY_TIMEOUT_MARGIN_MS],
    [500, 500 + QUERY_TIMEOUT_MARGIN_MS],
    [0, 0],
  ])(
    'given statement_timeout %i ms, when the client-side bound is derived, then it is %i ms (0: none)',
    (statement, expected) => {
      expect(clientQueryTimeoutMs(statement)).toBe(expected);
    },
  );

  it('given any statement timeout, then the server always answers first (the margin is 5 s)', () => {
    expect(QUERY_TIMEOUT_MARGIN_MS).toBe(5_000);
    expect(clientQueryTimeoutMs(1)).toBeGreaterThan(1);
  });
});
