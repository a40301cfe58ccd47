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

/** Which Kafka client library implements the project's producer, consumer and admin ports. */
export type KafkaClientKind = 'kafkajs' | 'platformatic';

/**
 * HOLDFAST_KAFKA_CLIENT: `kafkajs` (default) or `platformatic` (@platformatic/kafka).
 *
 * @example
 * readKafkaClientKind(new EnvReader({ HOLDFAST_KAFKA_CLIENT: 'platformatic' })); // 'platformatic'
 */
export function readKafkaClientKind(r: EnvReader): KafkaClientKind {
  const v = r.optional('HOLDFAST_KAFKA_CLIENT') ?? 'kafkajs';
  if (v === 'kafkajs' || v === 'platformatic') return v;
  r.problem(`HOLDFAST_KAFKA_CLIENT must be kafkajs or platformatic, got "${v}"`);
  return 'kafkajs';
}

/** Connection settings every service shares. */
export interface InfraConfig extends TransportConfig {
  readonly databaseUrl: string;
  readonly kafkaBrokers: readonly string[];
  readonly schemaRegistryUrl: string;
  /** Prepended to every topic name; lets test runs share one broker without seeing each other. */
  readonly topicPrefix: string;
  readonly partitions: number;
  /** The Kafka client library behind the ports (HOLDFAST_KAFKA_CLIENT: kafkajs, the default, or platformatic). */
  readonly kafkaClient?: KafkaClientKind;
  /**
   * PostgreSQL `statement_timeout` of every pool (HOLDFAST_PG_STATEMENT_TIMEOUT_MS, default 30 s; 0 =
   * none): a statement stuck behind a lock or a lost server fails, and the work is retried, instead
   * of holding a connection forever.
   */
  readonly pgStatementTimeoutMs?: number;
  /** How long opening a PostgreSQL connection may take (HOLDFAST_PG_CONNECT_TIMEOUT_MS, default 10 s). */
  readonly pgConnectTimeoutMs?: number;
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
    kafkaClient: readKafkaClientKind(r),
    ...readTransportConfig(r),
    pgStatementTimeoutMs: r.int('HOLDFAST_PG_STATEMENT_TIMEOUT_MS', 30_000, { min: 0, max: 86_400_000 }),
    pgConnectTimeoutMs: r.int('HOLDFAST_PG_CONNECT_TIMEOUT_MS', 10_000, { min: 100, max: 600_000 }),
  };
}
