import { describe, expect, it } from 'vitest';
import { ConfigError, EnvReader, readInfraConfig, readRetentionConfig } from './config.js';

const read = (env: Record<string, string>) => {
  const r = new EnvReader(env);
  return r.done(readRetentionConfig(r));
};

describe('readRetentionConfig', () => {
  it('given nothing set, then dead letters are kept 30 days and pixel events 395 days', () => {
    expect(read({})).toEqual({ deadLetterDays: 30, pixelEventDays: 395 });
  });

  it('given both settings, then they are taken as days', () => {
    expect(read({ HOLDFAST_DEAD_LETTER_RETENTION_DAYS: '7', HOLDFAST_PIXEL_RETENTION_DAYS: '180' })).toEqual({
      deadLetterDays: 7,
      pixelEventDays: 180,
    });
  });

  it('given zero or a fraction, then start-up fails naming the setting', () => {
    expect(() =>
      read({ HOLDFAST_DEAD_LETTER_RETENTION_DAYS: '0', HOLDFAST_PIXEL_RETENTION_DAYS: '1.5' }),
    ).toThrow(
      new ConfigError(
        'invalid configuration: HOLDFAST_DEAD_LETTER_RETENTION_DAYS must be an integer in [1, 3650], got "0"; ' +
          'HOLDFAST_PIXEL_RETENTION_DAYS must be an integer in [1, 3650], got "1.5"',
      ),
    );
  });

  it("is part of every service's infrastructure config", () => {
    const r = new EnvReader({ DATABASE_URL: 'postgres://x/y', HOLDFAST_DEAD_LETTER_RETENTION_DAYS: '14' });
    expect(readInfraConfig(r).retention).toEqual({ deadLetterDays: 14, pixelEventDays: 395 });
  });
});
