import { describe, expect, it } from 'vitest';
import { EnvReader, readInfraConfig, readKafkaClientKind } from './config.js';

const kind = (env: Record<string, string>) => {
  const r = new EnvReader(env);
  return r.done({ kind: readKafkaClientKind(r) }).kind;
};

describe('HOLDFAST_KAFKA_CLIENT', () => {
  it('given nothing set, when read, then kafkajs (the default until the new client is at parity)', () => {
    expect(kind({})).toBe('kafkajs');
    expect(readInfraConfig(new EnvReader({ DATABASE_URL: 'postgres://x/y' })).kafkaClient).toBe('kafkajs');
  });

  it.each(['kafkajs', 'platformatic'] as const)('given %s, when read, then that client', (v) => {
    expect(kind({ HOLDFAST_KAFKA_CLIENT: v })).toBe(v);
  });

  it('given an unknown client, when read, then the exact configuration error', () => {
    expect(() => kind({ HOLDFAST_KAFKA_CLIENT: 'rdkafka' })).toThrow(
      'invalid configuration: HOLDFAST_KAFKA_CLIENT must be kafkajs or platformatic, got "rdkafka"',
    );
  });
});
