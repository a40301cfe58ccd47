import type { Command } from 'commander';
import type { CliContext } from '../context.js';

/** A command module: adds its (sub)commands to the program. */
export type RegisterCommand = (program: Command, context: () => CliContext) => void;

/** Every command, in the order `--help` lists them. Add a module here to add a command. */
export const COMMANDS: RegisterCommand[] = [];
