/** Cross-cutting plumbing: typed config from the environment, the logger port, HTTP-mapped errors, metrics. */
export * from './config.js';
export * from './kafka-security-config.js';
export * from './database-secret.js';
export * from './logger.js';
export * from './errors.js';
export * from './metrics.js';
export * from './address-class.js';
export * from './outbound-http.js';
