/** Crypto-shredding: blind indexes, per-subject data keys and the personal-fields envelope (docs/privacy.md). */
export * from './blind-index.js';
export * from './envelope.js';
export * from './keys.js';
export * from './subject-key-store.js';
export * from './pg-subject-key-store.js';
export * from './subject-key-cache.js';
export * from './commerce-personal.js';
export * from './personal-records.js';
export * from './pixel-personal.js';
