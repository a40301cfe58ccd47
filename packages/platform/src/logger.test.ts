import { describe, expect, it } from 'vitest';
import { createLogger, REDACTED_LOG_KEYS } from './logger.js';

function capture() {
  const lines: string[] = [];
  const logger = createLogger('test', 'debug', { write: (line: string) => void lines.push(line) });
  return { logger, lines };
}

describe('createLogger redaction (the safety net)', () => {
  it.each(REDACTED_LOG_KEYS)('given %s at the top level or one level down, then it is censored', (key) => {
    const { logger, lines } = capture();
    logger.info('probe', { [key]: 'SECRET-VALUE', nested: { [key]: 'SECRET-VALUE' } });
    const line = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(line[key]).toBe('[redacted]');
    expect(line.nested).toEqual({ [key]: '[redacted]' });
    expect(lines[0]).not.toContain('SECRET-VALUE');
  });

  it('given request headers, then the authorization header is censored and the rest kept', () => {
    const { logger, lines } = capture();
    logger.warn('probe', { headers: { authorization: 'Bearer sk_live_x', 'user-agent': 'curl' } });
    expect(JSON.parse(lines[0]!)).toMatchObject({
      event: 'probe',
      headers: { authorization: '[redacted]', 'user-agent': 'curl' },
    });
  });

  it('given other keys, then they are logged as passed', () => {
    const { logger, lines } = capture();
    logger.child({ account_id: 'a-1' }).error('probe', { rows: 3, route: '/unsubscribe/:token' });
    expect(JSON.parse(lines[0]!)).toMatchObject({
      service: 'test',
      account_id: 'a-1',
      event: 'probe',
      rows: 3,
      route: '/unsubscribe/:token',
    });
  });
});
