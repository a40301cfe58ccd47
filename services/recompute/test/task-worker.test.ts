import { describe, expect, it } from 'vitest';
import { isTransient } from '../src/task-worker.js';

describe('isTransient: a recompute failure worth running again', () => {
  it.each([
    [
      'a lost connection (57P01)',
      Object.assign(new Error('terminating connection'), { code: '57P01' }),
      true,
    ],
    ['a connection failure (08006)', Object.assign(new Error('x'), { code: '08006' }), true],
    ['too many connections', Object.assign(new Error('x'), { code: '53300' }), true],
    ['a refused socket', Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }), true],
    ['pg’s client ending mid-query', new Error('Connection terminated unexpectedly'), true],
    ['an error that says it is retriable', Object.assign(new Error('x'), { isRetriable: true }), true],
    [
      'an error that says it is not',
      Object.assign(new Error('x'), { isRetriable: false, code: '57P01' }),
      false,
    ],
    ['a bug', new TypeError('cannot read properties of undefined'), false],
    ['a constraint violation', Object.assign(new Error('x'), { code: '23505' }), false],
  ])('%s', (_what, err, transient) => {
    expect(isTransient(err)).toBe(transient);
  });
});
