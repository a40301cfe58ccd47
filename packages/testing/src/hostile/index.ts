/** The hostile-input corpus, a raw HTTP client and the seeded fuzz run (gateway tests and bench/fuzz.ts). */
export * from './hostile-corpus.js';
export * from './fuzz-run.js';
export * from './raw-client.js';
