/**
 * The commerce rules of the spec as pure functions over plain state: identity resolution, the
 * customer merge, the order merge (one declarative column list) and sync-task transitions. The
 * projector and the recompute apply what these decide; docs/architecture.md maps spec → file.
 */
export * from './instant.js';
export * from './identity.js';
export * from './customer-merge.js';
export * from './consent-merge.js';
export * from './order-merge.js';
export * from './sync-task.js';
