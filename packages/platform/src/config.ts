import { readDatabaseUrl } from './database-secret.js';
import { readTransportConfig, type TransportConfig } from './kafka-security-config.js';

/** A problem with the environment, found once at start-up. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

type Env = Readonly<Record<string, string | undefined>>;

/** Reads typed values out of an environment, collecting every problem before failing. */
export class EnvReader {
  private readonly problems: string[] = [];
  constructor(private readonly env: Env) {}

  string(name: string, fallback?: string): string {
    const v = this.env[name] ?? fallback;
    if (v === undefined || v === '') {
      this.problems.push(`${name} is required`);
      return '';
    }
    return v;
  }

  optional(name: string): string | undefined {
    const v = this.env[name];
    return v === undefined || v === '' ? undefined : v;
  }

  int(name: string, fallback: number, { min = -Infinity, max = Infinity } = {}): number {
    const raw = this.env[name];
    if (raw === undefined || raw === '') return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) {
      this.problems.push(`${name} must be an integer in [${min}, ${max}], got "${raw}"`);
      return fallback;
    }
    return n;
  }

  bool(name: string, fallback: boolean): boolean {
    const raw = this.env[name];
    if (raw === undefined || raw === '') return fallback;
    if (['1', 'true', 'yes'].includes(raw.toLowerCase())) return true;
    if (['0', 'false', 'no'].includes(raw.toLowerCase())) return false;
    this.problems.push(`${name} must be true or false, got "${raw}"`);
    return fallback;
  }

  /** Records a problem found by a reader of its own (reported with the others at `done`). */
  problem(message: string): void {
    this.problems.push(message);
  }

  /** Throws one ConfigError naming every problem, or returns the frozen config. */
  done<T extends object>(config: T): Readonly<T> {
    if (this.problems.length) throw new ConfigError(`invalid configuration: ${this.problems.join('; ')}`);
    return Object.freeze(config);
  }
}

/** Connection settings every service shares. */
export interface InfraConfig extends TransportConfig {
  readonly databaseUrl: string;
  readonly kafkaBrokers: readonly string[];
  readonly schemaRegistryUrl: string;
  /** Prepended to every topic name; lets test runs share one broker without seeing each other. */
  readonly topicPrefix: string;
  readonly partitions: number;
  /**
   * PostgreSQL `statement_timeout` of every pool (HOLDFAST_PG_STATEMENT_TIMEOUT_MS, default 30 s; 0 =
   * none): a statement stuck behind a lock or a lost server fails, and the work is retried, instead
   * of holding a connection forever.
   */
  readonly pgStatementTimeoutMs?: number;
  /** How long opening a PostgreSQL connection may take (HOLDFAST_PG_CONNECT_TIMEOUT_MS, default 10 s). */
  readonly pgConnectTimeoutMs?: number;
  /** What the read side and the dead-letter topic keep, and for how long (see `readRetentionConfig`). */
  readonly retention?: RetentionConfig;
}

/**
 * Retention periods, in days, of what must not be kept forever. Part of the infrastructure config
 * because every service may create the holdfast.dlq topic (its `retention.ms`) and the CLI's
 * `holdfast replay` applies the same cut as the projector's retention pass.
 */
export interface RetentionConfig {
  /**
   * Dead letters (HOLDFAST_DEAD_LETTER_RETENTION_DAYS, default 30): rows of read_models.dead_letters
   * by the Kafka timestamp of the record, whatever their status, and the holdfast.dlq topic.
   */
  readonly deadLetterDays: number;
  /** Pixel events (HOLDFAST_PIXEL_RETENTION_DAYS, default 395 = 13 months), by `received_at`. */
  readonly pixelEventDays: number;
}

/** The default retention: dead letters 30 days, pixel events 395 days (13 months). */
export const DEFAULT_RETENTION: RetentionConfig = Object.freeze({ deadLetterDays: 30, pixelEventDays: 395 });

/**
 * HOLDFAST_DEAD_LETTER_RETENTION_DAYS (1 to 3650, default 30) and HOLDFAST_PIXEL_RETENTION_DAYS (1 to
 * 3650, default 395).
 *
 * @example
 * readRetentionConfig(new EnvReader({ HOLDFAST_PIXEL_RETENTION_DAYS: '180' })); // { deadLetterDays: 30, pixelEventDays: 180 }
 */
export function readRetentionConfig(r: EnvReader): RetentionConfig {
  return {
    deadLetterDays: r.int('HOLDFAST_DEAD_LETTER_RETENTION_DAYS', DEFAULT_RETENTION.deadLetterDays, {
      min: 1,
      max: 3650,
    }),
    pixelEventDays: r.int('HOLDFAST_PIXEL_RETENTION_DAYS', DEFAULT_RETENTION.pixelEventDays, {
      min: 1,
      max: 3650,
    }),
  };
}

export function readInfraConfig(r: EnvReader): InfraConfig {
  return {
    databaseUrl: readDatabaseUrl(r),
    kafkaBrokers: r
      .string('KAFKA_BROKERS', '127.0.0.1:9092')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    schemaRegistryUrl: r.string('SCHEMA_REGISTRY_URL', 'http://127.0.0.1:8081/apis/ccompat/v7'),
    topicPrefix: r.optional('HOLDFAST_TOPIC_PREFIX') ?? '',
    partitions: r.int('HOLDFAST_PARTITIONS', 4, { min: 1, max: 256 }),
    ...readTransportConfig(r),
    pgStatementTimeoutMs: r.int('HOLDFAST_PG_STATEMENT_TIMEOUT_MS', 30_000, { min: 0, max: 86_400_000 }),
    pgConnectTimeoutMs: r.int('HOLDFAST_PG_CONNECT_TIMEOUT_MS', 10_000, { min: 100, max: 600_000 }),
    retention: readRetentionConfig(r),
  };
}
