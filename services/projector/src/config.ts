import { EnvReader, readInfraConfig, type InfraConfig } from '@holdfast/platform';
import { DEFAULT_MEMORY_BUDGET } from '@holdfast/projections';
import { assertSchemaName, DEFAULT_READ_MODEL_SCHEMA, READ_SCHEMA_SETTING } from '@holdfast/read-models';

/** The projector process's configuration, parsed once at start-up. */
export interface ProjectorProcessConfig extends InfraConfig {
  readonly readSchema: string;
  /** Port of the /metrics endpoint. */
  readonly port: number;
  readonly chunkSize: number;
  /** How long a dead projector holds its partitions (HOLDFAST_SESSION_TIMEOUT_MS, ≥ 6,000). */
  readonly sessionTimeoutMs: number;
  /**
   * Budget of the commerce projection's identity memory (HOLDFAST_PROJECTOR_MEMORY_CUSTOMERS, default
   * 400,000; 0 turns it off, and HOLDFAST_PROJECTOR_MEMORY_ORDERS, default 3,000,000).
   */
  readonly memoryBudget: { readonly customers: number; readonly orders: number };
  /** Comma-separated HOLDFAST_PROJECTIONS; empty = all. */
  readonly projections: readonly string[];
  /**
   * How often expired rows are deleted (HOLDFAST_RETENTION_INTERVAL_MS, default 600,000): batch records
   * past 90 days, pixel events and dead letters past `retention` (InfraConfig).
   */
  readonly retentionIntervalMs: number;
  /** How often the privacy worker looks for queued erasures and exports (HOLDFAST_PRIVACY_POLL_MS, default 1,000). */
  readonly privacyPollMs: number;
}

/**
 * Reads DATABASE_URL, KAFKA_BROKERS, SCHEMA_REGISTRY_URL, HOLDFAST_TOPIC_PREFIX, HOLDFAST_PARTITIONS,
 * HOLDFAST_READ_SCHEMA (default read_models), PORT (default 9464), HOLDFAST_PROJECTOR_CHUNK (default
 * 5000), HOLDFAST_SESSION_TIMEOUT_MS (default 10000), HOLDFAST_PROJECTOR_MEMORY_CUSTOMERS and
 * HOLDFAST_PROJECTOR_MEMORY_ORDERS (identity memory budget), HOLDFAST_PROJECTIONS and
 * HOLDFAST_RETENTION_INTERVAL_MS (default 600000), HOLDFAST_PRIVACY_POLL_MS (default 1000). Throws one ConfigError naming every problem.
 */
export function loadProjectorConfig(
  env: Readonly<Record<string, string | undefined>>,
): Readonly<ProjectorProcessConfig> {
  const r = new EnvReader(env);
  const readSchema = r.string(READ_SCHEMA_SETTING, DEFAULT_READ_MODEL_SCHEMA);
  const config = {
    ...readInfraConfig(r),
    readSchema,
    port: r.int('PORT', 9464, { min: 0, max: 65535 }),
    chunkSize: r.int('HOLDFAST_PROJECTOR_CHUNK', 5000, { min: 1, max: 50_000 }),
    sessionTimeoutMs: r.int('HOLDFAST_SESSION_TIMEOUT_MS', 10_000, { min: 6000, max: 300_000 }),
    memoryBudget: {
      customers: r.int('HOLDFAST_PROJECTOR_MEMORY_CUSTOMERS', DEFAULT_MEMORY_BUDGET.customers, {
        min: 0,
        max: 50_000_000,
      }),
      orders: r.int('HOLDFAST_PROJECTOR_MEMORY_ORDERS', DEFAULT_MEMORY_BUDGET.orders, {
        min: 0,
        max: 500_000_000,
      }),
    },
    projections: (r.optional('HOLDFAST_PROJECTIONS') ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    retentionIntervalMs: r.int('HOLDFAST_RETENTION_INTERVAL_MS', 600_000, { min: 1_000, max: 86_400_000 }),
    privacyPollMs: r.int('HOLDFAST_PRIVACY_POLL_MS', 1_000, { min: 100, max: 600_000 }),
  };
  const done = r.done(config);
  assertSchemaName(done.readSchema);
  return done;
}
