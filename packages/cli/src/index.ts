/** The holdfast CLI as a library (tests drive `runCli` in process). */
export { runCli } from './main.js';
export { CliError, createContext, type CliContext } from './context.js';
export type { RegisterCommand } from './commands/index.js';
