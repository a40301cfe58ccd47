export interface SaslSslKafka {
  brokers: string;
  caFile: string;
  logPath: string;
  pid: number;
  stop(): Promise<void>;
}
export function makeCertificates(dir: string): Promise<{ caFile: string; keystoreFile: string }>;
export function startSaslSslKafka(options: {
  dir: string;
  port: number;
  controllerPort: number;
  users: Record<string, string>;
  log?: (message: string) => void;
}): Promise<SaslSslKafka>;
