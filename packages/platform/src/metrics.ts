import { collectDefaultMetrics, Registry } from 'prom-client';

/** A Prometheus registry per process with the default Node metrics and a `service` label. */
export function createMetricsRegistry(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  return registry;
}

export { Counter, Gauge, Histogram, Registry } from 'prom-client';
