#!/usr/bin/env node
/**
 * `holdfast`: the operator's console (accounts, keys, tiles, pixel keys, webhooks, replay, DLQ, sync)
 * and the backfill client. Each command lives in `commands/<name>.ts` and registers itself here.
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { Command, CommanderError } from 'commander';
import { ControlPlaneError } from '@holdfast/db';
import { CliError, createContext, type CliContext } from './context.js';
import { COMMANDS } from './commands/index.js';

function stackEnvFile(): Record<string, string> {
  try {
    const dir = process.env.HOLDFAST_CACHE ?? join(homedir(), '.cache', 'holdfast');
    return JSON.parse(readFileSync(join(dir, 'run', 'env.json'), 'utf8')) as Record<string, string>;
  } catch {
    return {};
  }
}

export async function runCli(argv: readonly string[], env = process.env): Promise<number> {
  const program = new Command('holdfast')
    .description('Holdfast operator console and backfill client')
    .option('--json', 'print machine-readable JSON')
    .showHelpAfterError()
    .exitOverride();
  let ctx: CliContext | undefined;
  const context = (): CliContext =>
    (ctx ??= createContext(env, Boolean(program.opts<{ json?: boolean }>().json), stackEnvFile()));
  for (const register of COMMANDS) register(program, context);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
    if (err instanceof CliError) {
      console.error(`holdfast: ${err.message}`);
      return err.exitCode;
    }
    if (err instanceof ControlPlaneError) {
      console.error(`holdfast: ${err.message}`);
      return err.code === 'not_found' ? 3 : 2;
    }
    console.error(`holdfast: ${(err as Error).stack ?? String(err)}`);
    return 1;
  } finally {
    await ctx?.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('/holdfast')) {
  process.exitCode = await runCli(process.argv.slice(2));
}
