import { readFileSync } from 'node:fs';
import type { EnvReader } from './config.js';

/** SASL credentials for the Kafka client (SCRAM in production; PLAIN only over TLS). */
export interface KafkaSaslConfig {
  readonly mechanism: 'scram-sha-512' | 'scram-sha-256' | 'plain';
  readonly username: string;
  readonly password: string;
}

/** TLS towards the brokers: PEM contents (read once at start-up), the server name to verify. */
export interface KafkaTlsConfig {
  /** Trusted CA(s); undefined = the system's CAs. */
  readonly ca?: string;
  /** Client certificate and key, for brokers that require mutual TLS. */
  readonly cert?: string;
  readonly key?: string;
  /** The name the broker certificate must carry, when it differs from the bootstrap host. */
  readonly servername?: string;
}

/** How the client reaches the brokers: undefined parts are off (the local default: plaintext). */
export interface KafkaSecurityConfig {
  readonly sasl?: KafkaSaslConfig;
  readonly tls?: KafkaTlsConfig;
}

/** How Holdfast creates its topics (HOLDFAST_PARTITIONS is read with the infra settings). */
export interface TopicReplicationConfig {
  /** Copies of every partition: 1 locally, 3 in production. */
  readonly replicationFactor: number;
  /** Copies that must acknowledge a write (`min.insync.replicas`): 1 locally, 2 in production. */
  readonly minInsyncReplicas: number;
}

/** Basic-auth credentials for the schema registry, where it requires them. */
export interface RegistryAuthConfig {
  readonly username: string;
  readonly password: string;
}

/**
 * Transport security and topic durability, shared by every service. Optional so hand-built configs
 * (tests) keep the local defaults: plaintext, replication factor 1.
 */
export interface TransportConfig {
  readonly kafkaSecurity?: KafkaSecurityConfig;
  readonly topicReplication?: TopicReplicationConfig;
  readonly registryAuth?: RegistryAuthConfig;
}

const MECHANISMS = ['scram-sha-512', 'scram-sha-256', 'plain'] as const;

/**
 * A secret from `NAME`, or from the file `NAME_FILE` names (container secrets are mounted as files);
 * a trailing newline of the file is not part of the secret.
 */
function secret(r: EnvReader, name: string, problems: string[]): string | undefined {
  const file = r.optional(`${name}_FILE`);
  if (file === undefined) return r.optional(name);
  return readPem(file, `${name}_FILE`, problems)?.replace(/\r?\n$/, '');
}

function readPem(path: string | undefined, name: string, problems: string[]): string | undefined {
  if (path === undefined) return undefined;
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    problems.push(`${name}: cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    return undefined;
  }
}

/**
 * Reads the Kafka client's SASL/TLS settings, the topics' replication and the registry's credentials:
 *
 * | variable | default | meaning |
 * | --- | --- | --- |
 * | `HOLDFAST_KAFKA_SASL_MECHANISM` | none | `scram-sha-512`, `scram-sha-256` or `plain` |
 * | `HOLDFAST_KAFKA_SASL_USERNAME`, `HOLDFAST_KAFKA_SASL_PASSWORD` (or `_PASSWORD_FILE`) | | its credentials |
 * | `HOLDFAST_KAFKA_TLS` | on when a TLS file is named | TLS to the brokers (system CAs unless `_CA_FILE`) |
 * | `HOLDFAST_KAFKA_TLS_CA_FILE`, `_CERT_FILE`, `_KEY_FILE`, `HOLDFAST_KAFKA_TLS_SERVERNAME` | | PEM files; name to verify |
 * | `HOLDFAST_KAFKA_REPLICATION_FACTOR` | 1 | copies of each partition of topics Holdfast creates |
 * | `HOLDFAST_KAFKA_MIN_INSYNC_REPLICAS` | 1 | their `min.insync.replicas` (≤ the replication factor) |
 * | `HOLDFAST_REGISTRY_USERNAME`, `HOLDFAST_REGISTRY_PASSWORD` (or `_PASSWORD_FILE`) | none | registry basic auth |
 *
 * Problems are reported through `r` (one ConfigError at `done`). PLAIN without TLS is refused: it
 * would send the password in clear.
 *
 * @example
 * const r = new EnvReader(process.env);
 * const config = r.done({ ...readInfraConfig(r) }); // readInfraConfig spreads readTransportConfig
 */
export function readTransportConfig(r: EnvReader): TransportConfig {
  const problems: string[] = [];
  const mechanismRaw = r.optional('HOLDFAST_KAFKA_SASL_MECHANISM')?.toLowerCase();
  let sasl: KafkaSaslConfig | undefined;
  if (mechanismRaw !== undefined) {
    const mechanism = MECHANISMS.find((m) => m === mechanismRaw);
    const username = r.optional('HOLDFAST_KAFKA_SASL_USERNAME');
    const password = secret(r, 'HOLDFAST_KAFKA_SASL_PASSWORD', problems);
    if (!mechanism)
      problems.push(
        `HOLDFAST_KAFKA_SASL_MECHANISM must be one of ${MECHANISMS.join(', ')}, got "${mechanismRaw}"`,
      );
    if (username === undefined)
      problems.push('HOLDFAST_KAFKA_SASL_USERNAME is required with a SASL mechanism');
    if (password === undefined)
      problems.push('HOLDFAST_KAFKA_SASL_PASSWORD is required with a SASL mechanism');
    if (mechanism && username !== undefined && password !== undefined)
      sasl = { mechanism, username, password };
  }
  const caFile = r.optional('HOLDFAST_KAFKA_TLS_CA_FILE');
  const certFile = r.optional('HOLDFAST_KAFKA_TLS_CERT_FILE');
  const keyFile = r.optional('HOLDFAST_KAFKA_TLS_KEY_FILE');
  const servername = r.optional('HOLDFAST_KAFKA_TLS_SERVERNAME');
  const tlsOn = r.bool('HOLDFAST_KAFKA_TLS', caFile !== undefined || certFile !== undefined);
  if ((certFile === undefined) !== (keyFile === undefined))
    problems.push('HOLDFAST_KAFKA_TLS_CERT_FILE and HOLDFAST_KAFKA_TLS_KEY_FILE go together');
  const tls: KafkaTlsConfig | undefined = tlsOn
    ? {
        ca: readPem(caFile, 'HOLDFAST_KAFKA_TLS_CA_FILE', problems),
        cert: readPem(certFile, 'HOLDFAST_KAFKA_TLS_CERT_FILE', problems),
        key: readPem(keyFile, 'HOLDFAST_KAFKA_TLS_KEY_FILE', problems),
        servername,
      }
    : undefined;
  if (sasl?.mechanism === 'plain' && !tls)
    problems.push(
      'HOLDFAST_KAFKA_SASL_MECHANISM=plain needs TLS (HOLDFAST_KAFKA_TLS=true): it sends the password',
    );
  const replicationFactor = r.int('HOLDFAST_KAFKA_REPLICATION_FACTOR', 1, { min: 1, max: 16 });
  const minInsyncReplicas = r.int('HOLDFAST_KAFKA_MIN_INSYNC_REPLICAS', 1, { min: 1, max: 16 });
  if (minInsyncReplicas > replicationFactor)
    problems.push(
      `HOLDFAST_KAFKA_MIN_INSYNC_REPLICAS (${minInsyncReplicas}) exceeds HOLDFAST_KAFKA_REPLICATION_FACTOR (${replicationFactor}): no write could succeed`,
    );
  const registryUser = r.optional('HOLDFAST_REGISTRY_USERNAME');
  const registryPassword = secret(r, 'HOLDFAST_REGISTRY_PASSWORD', problems);
  if ((registryUser === undefined) !== (registryPassword === undefined))
    problems.push('HOLDFAST_REGISTRY_USERNAME and HOLDFAST_REGISTRY_PASSWORD go together');
  for (const p of problems) r.problem(p);
  return {
    kafkaSecurity: { ...(sasl && { sasl }), ...(tls && { tls }) },
    topicReplication: { replicationFactor, minInsyncReplicas },
    ...(registryUser !== undefined &&
      registryPassword !== undefined && {
        registryAuth: { username: registryUser, password: registryPassword },
      }),
  };
}
