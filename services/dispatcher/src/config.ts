import { loadSecretsKeyring, type SecretsKeyring } from '@holdfast/secrets';
import {
  EnvReader,
  readInfraConfig,
  readOutboundPolicy,
  type InfraConfig,
  type OutboundPolicy,
} from '@holdfast/platform';

/** The dispatcher process's configuration, parsed once at start-up. */
export interface DispatcherProcessConfig {
  readonly infra: InfraConfig;
  /** Port of /metrics and /healthz (PORT, default 9466; 0 = any free port). */
  readonly port: number;
  readonly pollIntervalMs: number;
  readonly batchSize: number;
  /** DISPATCHER_PER_SUBSCRIPTION (4): deliveries of one subscription in flight at most. */
  readonly maxInFlightPerSubscription: number;
  readonly timeoutMs: number;
  /** Where deliveries may go (HOLDFAST_OUTBOUND_*; strict by default). */
  readonly outbound: OutboundPolicy;
  /** HOLDFAST_SECRETS_KEYS (required when NODE_ENV=production; else the local development key). */
  readonly keyring: SecretsKeyring;
}

/**
 * Reads DATABASE_URL, KAFKA_BROKERS, SCHEMA_REGISTRY_URL, HOLDFAST_TOPIC_PREFIX, HOLDFAST_PARTITIONS,
 * PORT, DISPATCHER_POLL_MS (1000), DISPATCHER_BATCH (50),
 * DISPATCHER_PER_SUBSCRIPTION (4), DISPATCHER_TIMEOUT_MS (10000), the outbound
 * policy (HOLDFAST_OUTBOUND_*) and HOLDFAST_SECRETS_KEYS. Throws a ConfigError naming the problems.
 */
export function loadDispatcherConfig(
  env: Readonly<Record<string, string | undefined>>,
): DispatcherProcessConfig {
  const r = new EnvReader(env);
  return r.done({
    infra: readInfraConfig(r),
    port: r.int('PORT', 9466, { min: 0, max: 65535 }),
    pollIntervalMs: r.int('DISPATCHER_POLL_MS', 1000, { min: 10, max: 600_000 }),
    batchSize: r.int('DISPATCHER_BATCH', 50, { min: 1, max: 1000 }),
    maxInFlightPerSubscription: r.int('DISPATCHER_PER_SUBSCRIPTION', 4, { min: 1, max: 1000 }),
    timeoutMs: r.int('DISPATCHER_TIMEOUT_MS', 10_000, { min: 100, max: 120_000 }),
    outbound: readOutboundPolicy(r),
    keyring: loadSecretsKeyring(env),
  });
}
