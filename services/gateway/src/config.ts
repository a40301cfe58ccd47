import { EnvReader, readInfraConfig, type InfraConfig } from '@holdfast/platform';

/** The gateway's configuration, parsed once at start-up from the environment. */
export interface GatewayConfig {
  readonly infra: InfraConfig;
  /** PORT (default 8080; 0 picks a free port). */
  readonly port: number;
  /** HOST (default 0.0.0.0). */
  readonly host: string;
  /** Schema of the projector's read models (HOLDFAST_READ_SCHEMA, default read_models). */
  readonly readModelSchema: string;
  /**
   * Express `trust proxy` (TRUST_PROXY): false (default) takes the client IP from the socket; true, a hop
   * count or a list of subnets takes it from X-Forwarded-For. The failed-authentication limit is per IP.
   */
  readonly trustProxy: boolean | number | string;
  /**
   * How long a credential lookup is cached (CREDENTIAL_CACHE_MS, default 30 s). The cache is dropped on
   * every `holdfast_credentials` notification, and bypassed while that LISTEN connection is down, so a
   * revoked key is refused within a second either way.
   */
  readonly credentialCacheMs: number;
  /** How often api_keys.last_used_at is written (LAST_USED_FLUSH_MS, default 60 s). */
  readonly lastUsedFlushMs: number;
  /** How often expired rate counters and batch records are purged (JANITOR_INTERVAL_MS, default 10 min). */
  readonly janitorIntervalMs: number;
  /**
   * Transactional producers kept open (PRODUCER_POOL_SIZE, default 16): concurrent batches each take
   * one. When pixel requests were transactions too, 4 producers capped the collector at ~1,100
   * events/s and 16 doubled it (docs/performance.md); the collector now has its own producers.
   */
  readonly producerPoolSize: number;
  /**
   * Idempotent (non-transactional) producers of POST /pixel/collect (PIXEL_PRODUCER_POOL_SIZE,
   * default 4). A collector request's events share one key, so one produce request of one record
   * batch stores them all or none without a transaction (docs/performance.md).
   */
  readonly pixelProducerPoolSize: number;
}

function parseTrustProxy(raw: string | undefined): boolean | number | string {
  if (raw === undefined) return false;
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  return /^\d+$/.test(raw) ? Number(raw) : raw;
}

/**
 * Reads the gateway's configuration; throws one ConfigError naming every problem.
 *
 * @example
 * const config = loadGatewayConfig(process.env);
 */
export function loadGatewayConfig(env: Readonly<Record<string, string | undefined>>): GatewayConfig {
  const r = new EnvReader(env);
  const readModelSchema = r.string('HOLDFAST_READ_SCHEMA', 'read_models');
  return r.done({
    infra: readInfraConfig(r),
    port: r.int('PORT', 8080, { min: 0, max: 65_535 }),
    host: r.string('HOST', '0.0.0.0'),
    readModelSchema,
    trustProxy: parseTrustProxy(r.optional('TRUST_PROXY')),
    credentialCacheMs: r.int('CREDENTIAL_CACHE_MS', 30_000, { min: 0, max: 600_000 }),
    lastUsedFlushMs: r.int('LAST_USED_FLUSH_MS', 60_000, { min: 10, max: 3_600_000 }),
    janitorIntervalMs: r.int('JANITOR_INTERVAL_MS', 600_000, { min: 1_000, max: 86_400_000 }),
    producerPoolSize: r.int('PRODUCER_POOL_SIZE', 16, { min: 1, max: 64 }),
    pixelProducerPoolSize: r.int('PIXEL_PRODUCER_POOL_SIZE', 4, { min: 1, max: 64 }),
  });
}
