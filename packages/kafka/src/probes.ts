import type { Admin, Kafka } from 'kafkajs';

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
export function kafkaProbe(kafka: Kafka): (() => Promise<void>) & { close(): Promise<void> } {
  let admin: Admin | undefined;
  const probe = async () => {
    if (!admin) {
      const a = kafka.admin({ retry: { retries: 0 } });
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
