import { describe, expect, it } from 'vitest';
import { beginStatement } from './transaction.js';

describe('beginStatement', () => {
  it('given no options, then a plain begin', () => {
    expect(beginStatement()).toBe('begin');
  });

  it('given an isolation level and read only, then both on the begin', () => {
    expect(beginStatement({ isolation: 'repeatable read', readOnly: true })).toBe(
      'begin isolation level repeatable read read only',
    );
  });

  it('given settings, then one set local each, in order, in the same statement', () => {
    expect(beginStatement({ settings: { enable_hashjoin: 'off', synchronous_commit: 'off' } })).toBe(
      'begin; set local enable_hashjoin = off; set local synchronous_commit = off',
    );
  });
});
