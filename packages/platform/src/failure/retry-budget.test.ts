import { describe, expect, it } from 'vitest';
import {
  countsAgainstRetryBudget,
  nextRetryStreak,
  retryBudgetExhausted,
  retryBudgetReason,
  type RetryStreak,
} from './retry-budget.js';

const pg = (code: string, message: string) => Object.assign(new Error(message), { code });
const timeout = pg('57014', 'canceling statement due to statement timeout');
const deadlock = pg('40P01', 'deadlock detected');
const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
const shutdown = pg('57P01', 'terminating connection due to administrator command');

describe('countsAgainstRetryBudget: failures of the work itself, never an outage', () => {
  it.each([
    ['a statement timeout', timeout, true],
    ['a lock timeout', pg('55P03', 'canceling statement due to lock timeout'), true],
    ['a serialization failure', pg('40001', 'could not serialize access'), true],
    ['a deadlock', deadlock, true],
    ['a statement timeout wrapped as a cause', new Error('apply failed', { cause: timeout }), true],
    ['a refused connection', refused, false],
    ['a server shutting down', shutdown, false],
    ['too many connections', pg('53300', 'sorry, too many clients already'), false],
    ['a permanent failure', pg('22003', 'numeric field overflow'), false],
    ['a bug', new TypeError('x is undefined'), false],
  ])('given %s, then %s', (_name, err, expected) => {
    expect(countsAgainstRetryBudget(err)).toBe(expected);
  });
});

describe('nextRetryStreak / retryBudgetExhausted', () => {
  it('given the same statement timeout N times in a row, then the budget of N is exhausted at the Nth, not before', () => {
    let streak: RetryStreak | null = null;
    for (let i = 1; i <= 9; i++) {
      streak = nextRetryStreak(streak, timeout);
      expect(retryBudgetExhausted(streak, 10)).toBe(false);
    }
    streak = nextRetryStreak(streak, timeout);
    expect(streak).toEqual({ signature: '57014|canceling statement due to statement timeout', count: 10 });
    expect(retryBudgetExhausted(streak, 10)).toBe(true);
    expect(retryBudgetReason(streak!)).toBe(
      'retries_exhausted: 10 identical failures (57014: canceling statement due to statement timeout)',
    );
  });

  it('given a different failure in between, then the streak starts again at 1', () => {
    let streak = nextRetryStreak(nextRetryStreak(null, timeout), timeout);
    expect(streak?.count).toBe(2);
    streak = nextRetryStreak(streak, deadlock);
    expect(streak).toEqual({ signature: '40P01|deadlock detected', count: 1 });
  });

  it('given an outage in between, then there is no streak: the outage is retried without bound', () => {
    const streak = nextRetryStreak(nextRetryStreak(null, timeout), refused);
    expect(streak).toBeNull();
    expect(retryBudgetExhausted(streak, 1)).toBe(false);
  });

  it('given quoted values in the message, then the signature carries none of them', () => {
    const e = pg('57014', 'canceling statement "alice@example.com"');
    expect(nextRetryStreak(null, e)?.signature).toBe('57014|canceling statement "…"');
  });
});
