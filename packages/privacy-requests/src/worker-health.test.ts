import { describe, expect, it } from 'vitest';
import { passVerdict } from './worker-health.js';

const pgError = (code: string) =>
  Object.assign(new Error('relation "privacy.erasure_requests" does not exist'), { code });

describe('passVerdict: the privacy worker before the migrations', () => {
  it('given the tables missing (42P01, 3F000), then it says so once and waits quietly after', () => {
    const first = passVerdict('ok', pgError('42P01'));
    expect(first).toEqual({ health: 'awaiting_migrations', log: 'awaiting_migrations' });
    expect(passVerdict(first.health, pgError('42P01'))).toEqual({ health: 'awaiting_migrations', log: null });
    expect(passVerdict(first.health, pgError('3F000'))).toEqual({ health: 'awaiting_migrations', log: null });
  });

  it('given a pass that works after waiting, then it says the migrations are there, once', () => {
    expect(passVerdict('awaiting_migrations', undefined)).toEqual({
      health: 'ok',
      log: 'migrations_present',
    });
    expect(passVerdict('ok', undefined)).toEqual({ health: 'ok', log: null });
  });

  it('given any other failure, then every pass logs it, and its end once', () => {
    expect(passVerdict('ok', new Error('connection refused'))).toEqual({
      health: 'failing',
      log: 'pass_failed',
    });
    expect(passVerdict('failing', pgError('57P01'))).toEqual({ health: 'failing', log: 'pass_failed' });
    expect(passVerdict('failing', undefined)).toEqual({ health: 'ok', log: 'recovered' });
  });
});
