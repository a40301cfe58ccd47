/** The holdfast CLI as a library: `runCli` (tests drive it in process), the dev fixture, the backfill. */
export { runCli, EXIT } from './main.js';
export { CliError, createContext, processIo, type CliContext, type CliIo } from './context.js';
export type { RegisterCommand } from './commands/index.js';
export { createDevFixture, type DevFixture, type DevFixtureOptions } from './fixture.js';
export { runBackfill, endpointUrl, type BackfillOptions } from './backfill/run.js';
export type { BackfillSummary } from './backfill/summary.js';
