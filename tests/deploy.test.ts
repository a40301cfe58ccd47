// The Kubernetes manifests (deploy/kubernetes): each workload reads its own Secret with only the keys it
// needs (the gateway no master key), the gateway believes X-Forwarded-For from the ingress only, and
// every workload reaches Kafka over SASL_SSL. The manifests are hand-written in one layout, read here
// line by line (no YAML dependency), and the values go through the services' own config readers.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EnvReader, readTransportConfig } from '@holdfast/platform';
import { loadGatewayConfig } from '../services/gateway/src/config.js';
import { loadConsoleConfig } from '../services/console/src/config.js';

const DIR = 'deploy/kubernetes';
const files = readdirSync(DIR).filter((f) => f.endsWith('.yaml'));

interface Workload {
  readonly name: string;
  readonly text: string;
  /** env entries with a literal value */
  readonly values: Map<string, string>;
  /** env entries from a Secret: variable → [secret, key] */
  readonly secrets: Map<string, [string, string]>;
}

const unquote = (v: string) => v.trim().replace(/^'(.*)'$/, '$1');

function workloads(): Workload[] {
  const out: Workload[] = [];
  for (const f of files) {
    const text = readFileSync(join(DIR, f), 'utf8');
    if (!/^kind: (Deployment|Job)$/m.test(text)) continue;
    const name = /^ {2}name: (holdfast-[a-z-]+)$/m.exec(text)![1]!;
    const values = new Map<string, string>();
    const secrets = new Map<string, [string, string]>();
    for (const m of text.matchAll(/^ +- name: ([A-Z_]+)\n +value: (.+)$/gm))
      values.set(m[1]!, unquote(m[2]!));
    for (const m of text.matchAll(
      /^ +- name: ([A-Z_]+)\n +valueFrom:\n +secretKeyRef:\n +name: (\S+)\n +key: (\S+)$/gm,
    ))
      secrets.set(m[1]!, [m[2]!, m[3]!]);
    out.push({ name, text, values, secrets });
  }
  return out;
}

function configMap(): Record<string, string> {
  const text = readFileSync(join(DIR, 'holdfast-config.yaml'), 'utf8');
  const data = text.slice(text.indexOf('\ndata:\n'));
  return Object.fromEntries(
    [...data.matchAll(/^ {2}([A-Z_]+): (.+)$/gm)].map((m) => [m[1]!, unquote(m[2]!)]),
  );
}

const byName = new Map(workloads().map((w) => [w.name, w]));

describe('deploy/kubernetes', () => {
  it('has the five services and the operator job', () => {
    expect([...byName.keys()].sort()).toEqual([
      'holdfast-console',
      'holdfast-dispatcher',
      'holdfast-gateway',
      'holdfast-operator',
      'holdfast-projector',
      'holdfast-recompute',
    ]);
  });

  it('gives each workload a Secret of its own (no secret shared by two), holding only the keys it needs', () => {
    const owners = new Map<string, string[]>();
    for (const w of byName.values()) {
      // Never a whole Secret into the environment: what a service reads is listed key by key.
      expect(w.text, w.name).not.toMatch(/secretRef:/);
      for (const [secret] of w.secrets.values()) owners.set(secret, [...(owners.get(secret) ?? []), w.name]);
      expect([...new Set([...w.secrets.values()].map(([s]) => s))], w.name).toEqual([w.name]);
      for (const [variable, [, key]] of w.secrets) expect(key).toBe(variable);
    }
    for (const [secret, users] of owners) expect(new Set(users).size, secret).toBe(1);
    const keys = (name: string) => [...byName.get(name)!.secrets.keys()].sort();
    const common = ['DATABASE_URL', 'HOLDFAST_KAFKA_SASL_PASSWORD'];
    expect(keys('holdfast-gateway')).toEqual(
      [
        ...common,
        'HOLDFAST_INBOUND_KEYS',
        'HOLDFAST_PRIVACY_KEYS',
        'HOLDFAST_UNSUBSCRIBE_KEYS',
        'HOLDFAST_WEBHOOK_SEAL_KEY',
      ].sort(),
    );
    expect(keys('holdfast-recompute')).toEqual(
      [...common, 'HOLDFAST_SECRETS_KEYS', 'HOLDFAST_UNSUBSCRIBE_KEYS'].sort(),
    );
    expect(keys('holdfast-dispatcher')).toEqual([...common, 'HOLDFAST_SECRETS_KEYS'].sort());
    expect(keys('holdfast-projector')).toEqual([...common, 'HOLDFAST_PRIVACY_KEYS'].sort());
    // The console: its database role and its own keys (no Kafka, no master key; the seal key opens nothing).
    expect(keys('holdfast-console')).toEqual([
      'DATABASE_URL',
      'HOLDFAST_CONSOLE_KEYS',
      'HOLDFAST_WEBHOOK_SEAL_KEY',
    ]);
    expect(byName.get('holdfast-console')!.text).not.toContain('HOLDFAST_SECRETS_KEYS');
    expect(keys('holdfast-operator')).toEqual(
      [...common, 'HOLDFAST_INBOUND_KEYS', 'HOLDFAST_PRIVACY_KEYS', 'HOLDFAST_SECRETS_KEYS'].sort(),
    );
    // No master key at the public edge, not even as a literal.
    expect(byName.get('holdfast-gateway')!.text).not.toContain('HOLDFAST_SECRETS_KEYS');
    // And nothing secret in the shared ConfigMap.
    expect(Object.keys(configMap()).filter((k) => /KEYS|PASSWORD|DATABASE_URL/.test(k))).toEqual([]);
  });

  it('sets the gateway trusted proxies to the ingress range (a CIDR the gateway config accepts, never "trust any")', () => {
    const trust = byName.get('holdfast-gateway')!.values.get('TRUST_PROXY');
    expect(trust).toMatch(/^\d+\.\d+\.\d+\.\d+\/\d+$/);
    const b64 = Buffer.alloc(32, 1).toString('base64');
    const config = loadGatewayConfig({
      DATABASE_URL: 'postgres://x@db/holdfast',
      TRUST_PROXY: trust,
      NODE_ENV: 'production',
      HOLDFAST_UNSUBSCRIBE_KEYS: `u1:${b64}`,
      HOLDFAST_INBOUND_KEYS: `i1:${b64}`,
    });
    expect(config.trustProxy).toBe(trust);
    // The console's sign-in limits count client addresses too: the same ingress range, through its reader.
    const consoleEnv = byName.get('holdfast-console')!.values;
    expect(consoleEnv.get('TRUST_PROXY')).toBe(trust);
    const consoleConfig = loadConsoleConfig({
      DATABASE_URL: 'postgres://x@db/holdfast',
      NODE_ENV: 'production',
      HOLDFAST_CONSOLE_KEYS: `c1:${b64}`,
      ...configMap(),
      ...Object.fromEntries(consoleEnv),
    });
    expect(consoleConfig.trustProxy).toBe(trust);
    expect(consoleConfig.secureCookies).toBe(true);
    for (const name of byName.keys())
      if (name !== 'holdfast-gateway' && name !== 'holdfast-console')
        expect(byName.get(name)!.values.has('TRUST_PROXY')).toBe(false);
  });

  it('wires every workload to Kafka over SASL_SSL (SCRAM-SHA-512, the brokers CA mounted where the config points)', () => {
    const shared = configMap();
    expect(shared.HOLDFAST_KAFKA_SASL_MECHANISM).toBe('scram-sha-512');
    const caDir = dirname(shared.HOLDFAST_KAFKA_TLS_CA_FILE!);
    // The console uses no Kafka: no user, no CA.
    expect(byName.get('holdfast-console')!.text).not.toContain('HOLDFAST_KAFKA_SASL');
    for (const w of [...byName.values()].filter((x) => x.name !== 'holdfast-console')) {
      expect(w.text, w.name).toContain('configMapRef:\n                name: holdfast-config');
      expect(w.values.get('HOLDFAST_KAFKA_SASL_USERNAME'), w.name).toBe(w.name);
      expect(w.text, w.name).toMatch(
        new RegExp(`- name: kafka-ca\\n +mountPath: ${caDir}\\n +readOnly: true`),
      );
      expect(w.text, w.name).toMatch(/- name: kafka-ca\n +configMap:\n +name: holdfast-kafka-ca/);
    }
    // What the services' own reader makes of it (the CA file as it would be mounted).
    const ca = join(mkdtempSync(join(tmpdir(), 'hf-deploy-')), 'ca.crt');
    writeFileSync(ca, readFileSync(join(DIR, 'holdfast-kafka-ca.yaml'), 'utf8'));
    const r = new EnvReader({
      ...shared,
      HOLDFAST_KAFKA_TLS_CA_FILE: ca,
      HOLDFAST_KAFKA_SASL_USERNAME: 'holdfast-gateway',
      HOLDFAST_KAFKA_SASL_PASSWORD: 'from-the-secret',
    });
    const transport = r.done(readTransportConfig(r));
    expect(transport.kafkaSecurity?.sasl).toEqual({
      mechanism: 'scram-sha-512',
      username: 'holdfast-gateway',
      password: 'from-the-secret',
    });
    expect(transport.kafkaSecurity?.tls?.ca).toContain('BEGIN CERTIFICATE');
    expect(transport.topicReplication).toEqual({ replicationFactor: 3, minInsyncReplicas: 2 });
    expect(shared.KAFKA_BROKERS!.split(',').every((b) => b.endsWith(':9093'))).toBe(true);
  });
});
