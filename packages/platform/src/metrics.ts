import { collectDefaultMetrics, Counter, Registry } from 'prom-client';

/** A Prometheus registry per process with the default Node metrics and a `service` label. */
export function createMetricsRegistry(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  return registry;
}

/**
 * `holdfast_retry_budget_exhausted_total{component}`: records and tasks given up after
 * HOLDFAST_RETRY_BUDGET identical failures of their own (alert HoldfastRetryBudgetExhausted).
 * Returns the increment for one component.
 *
 * @example
 * const exhausted = retryBudgetCounter(registry);
 * runExactlyOnce({ ..., onRetryBudgetExhausted: () => exhausted('projector') });
 */
export function retryBudgetCounter(registry: Registry): (component: string) => void {
  const counter = new Counter({
    name: 'holdfast_retry_budget_exhausted_total',
    help: 'Records dead-lettered and tasks failed after HOLDFAST_RETRY_BUDGET identical failures of their own',
    labelNames: ['component'],
    registers: [registry],
  });
  return (component) => counter.inc({ component });
}

export { Counter, Gauge, Histogram, Registry } from 'prom-client';
