/**
 * The projector service: the process that runs @holdfast/projections (the projections, their runner,
 * replay, dead letters and retention) against the stack; `main.ts` is its entry.
 */
export { loadProjectorConfig, type ProjectorProcessConfig } from './config.js';
