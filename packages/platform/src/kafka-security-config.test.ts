import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EnvReader, readInfraConfig } from './config.js';
import { readTransportConfig } from './kafka-security-config.js';

const read = (env: Record<string, string>) => {
  const r = new EnvReader(env);
  return r.done(readTransportConfig(r));
};

describe('readTransportConfig', () => {
  it('defaults to plaintext, one copy, no registry credentials (the local stack)', () => {
    expect(read({})).toEqual({
      kafkaSecurity: {},
      topicReplication: { replicationFactor: 1, minInsyncReplicas: 1 },
    });
  });

  it('reads SCRAM, TLS files, production replication and registry credentials', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hf-tls-'));
    writeFileSync(join(dir, 'ca.pem'), 'CA PEM');
    writeFileSync(join(dir, 'registry-password'), 'r-pass\n');
    expect(
      read({
        HOLDFAST_KAFKA_SASL_MECHANISM: 'SCRAM-SHA-512',
        HOLDFAST_KAFKA_SASL_USERNAME: 'gateway',
        HOLDFAST_KAFKA_SASL_PASSWORD: 'k-pass',
        HOLDFAST_KAFKA_TLS_CA_FILE: join(dir, 'ca.pem'),
        HOLDFAST_KAFKA_TLS_SERVERNAME: 'kafka.internal',
        HOLDFAST_KAFKA_REPLICATION_FACTOR: '3',
        HOLDFAST_KAFKA_MIN_INSYNC_REPLICAS: '2',
        HOLDFAST_REGISTRY_USERNAME: 'holdfast',
        HOLDFAST_REGISTRY_PASSWORD_FILE: join(dir, 'registry-password'),
      }),
    ).toEqual({
      kafkaSecurity: {
        sasl: { mechanism: 'scram-sha-512', username: 'gateway', password: 'k-pass' },
        tls: { ca: 'CA PEM', cert: undefined, key: undefined, servername: 'kafka.internal' },
      },
      topicReplication: { replicationFactor: 3, minInsyncReplicas: 2 },
      registryAuth: { username: 'holdfast', password: 'r-pass' },
    });
  });

  it('names every problem at once', () => {
    expect(() =>
      read({
        HOLDFAST_KAFKA_SASL_MECHANISM: 'gssapi',
        HOLDFAST_KAFKA_TLS_CA_FILE: '/nonexistent/ca.pem',
        HOLDFAST_KAFKA_TLS_CERT_FILE: '/nonexistent/cert.pem',
        HOLDFAST_KAFKA_REPLICATION_FACTOR: '2',
        HOLDFAST_KAFKA_MIN_INSYNC_REPLICAS: '3',
        HOLDFAST_REGISTRY_USERNAME: 'x',
      }),
    ).toThrow(
      'invalid configuration: HOLDFAST_KAFKA_SASL_MECHANISM must be one of scram-sha-512, scram-sha-256, plain, got "gssapi"; ' +
        'HOLDFAST_KAFKA_SASL_USERNAME is required with a SASL mechanism; ' +
        'HOLDFAST_KAFKA_SASL_PASSWORD is required with a SASL mechanism; ' +
        'HOLDFAST_KAFKA_TLS_CERT_FILE and HOLDFAST_KAFKA_TLS_KEY_FILE go together; ' +
        'HOLDFAST_KAFKA_TLS_CA_FILE: cannot read /nonexistent/ca.pem (ENOENT); ' +
        'HOLDFAST_KAFKA_TLS_CERT_FILE: cannot read /nonexistent/cert.pem (ENOENT); ' +
        'HOLDFAST_KAFKA_MIN_INSYNC_REPLICAS (3) exceeds HOLDFAST_KAFKA_REPLICATION_FACTOR (2): no write could succeed; ' +
        'HOLDFAST_REGISTRY_USERNAME and HOLDFAST_REGISTRY_PASSWORD go together',
    );
  });

  it('refuses SASL PLAIN without TLS (the password would travel in clear)', () => {
    expect(() =>
      read({
        HOLDFAST_KAFKA_SASL_MECHANISM: 'plain',
        HOLDFAST_KAFKA_SASL_USERNAME: 'u',
        HOLDFAST_KAFKA_SASL_PASSWORD: 'p',
      }),
    ).toThrow(
      'HOLDFAST_KAFKA_SASL_MECHANISM=plain needs TLS (HOLDFAST_KAFKA_TLS=true): it sends the password',
    );
  });

  it('takes the database password from HOLDFAST_DATABASE_PASSWORD_FILE (a container secret)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hf-db-'));
    writeFileSync(join(dir, 'pw'), 'p@ss:w/rd\n');
    const r = new EnvReader({
      DATABASE_URL: 'postgres://holdfast_gateway@postgres:5432/holdfast',
      HOLDFAST_DATABASE_PASSWORD_FILE: join(dir, 'pw'),
    });
    const url = new URL(r.done(readInfraConfig(r)).databaseUrl);
    expect([url.username, decodeURIComponent(url.password), url.pathname]).toEqual([
      'holdfast_gateway',
      'p@ss:w/rd',
      '/holdfast',
    ]);
    const bad = new EnvReader({
      DATABASE_URL: 'postgres://x@y/z',
      HOLDFAST_DATABASE_PASSWORD_FILE: '/nonexistent',
    });
    expect(() => bad.done(readInfraConfig(bad))).toThrow(
      'invalid configuration: HOLDFAST_DATABASE_PASSWORD_FILE: cannot read /nonexistent (ENOENT)',
    );
  });

  it('is part of every service’s infra settings', () => {
    const r = new EnvReader({ DATABASE_URL: 'postgres://x/y', HOLDFAST_KAFKA_REPLICATION_FACTOR: '3' });
    expect(r.done(readInfraConfig(r)).topicReplication).toEqual({
      replicationFactor: 3,
      minInsyncReplicas: 1,
    });
  });
});
