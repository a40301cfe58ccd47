export interface StackEnv {
  DATABASE_URL: string;
  KAFKA_BROKERS: string;
  SCHEMA_REGISTRY_URL: string;
}
export function up(settings: unknown, log?: (message: string) => void): Promise<StackEnv>;
export function down(settings: unknown, log?: (message: string) => void): Promise<void>;
export function status(settings: unknown): Promise<unknown>;
