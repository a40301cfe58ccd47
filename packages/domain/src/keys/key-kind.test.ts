import { describe, expect, it } from 'vitest';
import { keyKind } from './key-kind.js';

describe('keyKind', () => {
  it.each([
    ['tk_live_abc123', 'ingest_live'],
    ['tk_test_abc123', 'ingest_test'],
    ['sk_live_abc123', 'outbound'],
    ['rk_live_abc123', 'read_live'],
    ['rk_live_', 'unknown'],
    ['pk_abc123', 'pixel'],
    ['whsec_abc123', 'webhook_secret'],
    ['tk_live_', 'unknown'],
    ['pk_', 'unknown'],
    ['TK_LIVE_abc', 'unknown'],
    ['tk_abc', 'unknown'],
    ['sk_test_abc', 'unknown'],
    ['', 'unknown'],
  ])('given %j, when classified, then it is %s', (token, kind) => {
    expect(keyKind(token)).toBe(kind);
  });
});
