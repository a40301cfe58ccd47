/**
 * Cross-cutting plumbing: typed config from the environment, the logger port, HTTP-mapped errors,
 * metrics, the failure taxonomy (classifyError, retry with backoff and jitter, waitFor) and the ops
 * listener (/healthz, /readyz, /metrics) every service runs.
 */
export * from './config.js';
export * from './kafka-security-config.js';
export * from './database-secret.js';
export * from './logger.js';
export * from './errors.js';
export * from './metrics.js';
export * from './address-class.js';
export * from './outbound-http.js';
export * from './failure/classify.js';
export * from './failure/backoff.js';
export * from './failure/wait-for.js';
export * from './failure/retry-budget.js';
export * from './ops/loop-monitor.js';
export * from './ops/readiness.js';
export * from './ops/ops-server.js';
export * from './ops/ops-config.js';
export * from './ops/probes.js';
export * from './ops/run-service.js';
export * from './ops/pool-options.js';
export * from './tracing.js';
export * from './name-uuid.js';
