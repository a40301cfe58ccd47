export interface KafkaNode {
  id: number;
  name: string;
  host: string;
  port: number;
  controllerPort: number;
  logDir: string;
}
export function kafkaNodes(settings: unknown): KafkaNode[];
export function kafkaReplication(settings: unknown): { replicationFactor: number; minInsyncReplicas: number };
export function startKafka(settings: unknown, log: (message: string) => void): Promise<string>;
export function ensureKafkaInstalled(settings: unknown, log: (message: string) => void): Promise<string>;
