// `npm run infra:up -- --brokers 3`: the nodes of a local cluster, their ports, names and data
// directories, and the replication its topics get (infra/lib/kafka.mjs).
import { describe, expect, it } from 'vitest';
import { kafkaNodes, kafkaReplication } from '../infra/lib/kafka.mjs';
import { loadSettings } from '../infra/lib/settings.mjs';

const settings = (env: Record<string, string>) =>
  loadSettings({ HOLDFAST_CACHE: '/tmp/holdfast-layout', ...env });

describe('the local Kafka cluster layout', () => {
  it('keeps the single broker as it always was by default', () => {
    const s = settings({});
    expect(kafkaNodes(s)).toEqual([
      {
        id: 1,
        name: 'kafka',
        host: '127.0.0.1',
        port: 9092,
        controllerPort: 9093,
        logDir: '/tmp/holdfast-layout/data/kafka',
      },
    ]);
    expect(kafkaReplication(s)).toEqual({ replicationFactor: 1, minInsyncReplicas: 1 });
  });

  it('gives three brokers interleaved ports, names and data of their own, and replication 3/2', () => {
    const s = settings({
      HOLDFAST_KAFKA_BROKER_COUNT: '3',
      HOLDFAST_KAFKA_PORT: '19400',
      HOLDFAST_KAFKA_CONTROLLER_PORT: '19401',
    });
    expect(kafkaNodes(s).map((n) => [n.id, n.name, n.port, n.controllerPort, n.logDir])).toEqual([
      [1, 'kafka-1', 19400, 19401, '/tmp/holdfast-layout/data/kafka-1'],
      [2, 'kafka-2', 19402, 19403, '/tmp/holdfast-layout/data/kafka-2'],
      [3, 'kafka-3', 19404, 19405, '/tmp/holdfast-layout/data/kafka-3'],
    ]);
    expect(kafkaReplication(s)).toEqual({ replicationFactor: 3, minInsyncReplicas: 2 });
  });

  it('refuses a broker count it cannot run', () => {
    expect(() => kafkaNodes(settings({ HOLDFAST_KAFKA_BROKER_COUNT: '0' }))).toThrow(/1\.\.9/);
  });
});
