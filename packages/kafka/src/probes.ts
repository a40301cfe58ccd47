import type { KafkaAdmin, KafkaClient } from './ports.js';

/**
 * A readiness probe of the brokers: asks the cluster's metadata through an admin client that does
 * not retry on its own (the probe answers within its timeout). Connects lazily and again after a
 * failure.
 *
 * @example
 * const kafkaReady = kafkaProbe(kafka);
 * readiness.add('kafka', kafkaReady);
 * await kafkaReady.close();
 */
export function kafkaProbe(kafka: KafkaClient): (() => Promise<void>) & { close(): Promise<void> } {
  let admin: KafkaAdmin | undefined;
  const probe = async () => {
    if (!admin) {
      const a = kafka.admin({ retries: 0 });
      await a.connect();
      admin = a;
    }
    try {
      await admin.describeCluster();
    } catch (err) {
      const a = admin;
      admin = undefined;
      await a.disconnect().catch(() => {});
      throw err;
    }
  };
  return Object.assign(probe, {
    close: async () => {
      const a = admin;
      admin = undefined;
      await a?.disconnect().catch(() => {});
    },
  });
}
