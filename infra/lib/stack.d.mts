export interface StackEnv {
  DATABASE_URL: string;
  KAFKA_BROKERS: string;
  SCHEMA_REGISTRY_URL: string;
  /** Set by a cluster of three brokers or more: 3 and 2. */
  HOLDFAST_KAFKA_REPLICATION_FACTOR?: string;
  HOLDFAST_KAFKA_MIN_INSYNC_REPLICAS?: string;
}
export function up(settings: unknown, log?: (message: string) => void): Promise<StackEnv>;
export function down(settings: unknown, log?: (message: string) => void): Promise<void>;
export function status(settings: unknown): Promise<unknown>;
