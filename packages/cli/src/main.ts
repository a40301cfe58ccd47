#!/usr/bin/env node
/**
 * `holdfast`: the operator's console (accounts, keys, tiles, pixel keys, webhooks, replay, DLQ, sync)
 * and the backfill client. Each command lives in `commands/<name>.ts` and registers itself here.
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Command, CommanderError } from 'commander';
import { ControlPlaneError } from '@holdfast/control-plane';
import { CliError, createContext, processIo, type CliContext, type CliIo } from './context.js';
import { COMMANDS, type RegisterCommand } from './commands/index.js';

/** Exit codes, the same for every command (also printed by `holdfast --help`). */
export const EXIT = { ok: 0, failure: 1, usage: 2, notFound: 3 } as const;

const EPILOGUE = `
Exit codes:
  0  success
  1  runtime failure (database, Kafka or ingest endpoint unreachable, retries exhausted, interrupted)
  2  usage error or rule violation (bad option, limit reached, ingest rejected a batch with a 4xx)
  3  not found (no such account, key, pixel key, subscription, tile or file)

Results go to stdout (JSON with --json); progress and diagnostics go to stderr.
Connection settings come from DATABASE_URL, KAFKA_BROKERS, SCHEMA_REGISTRY_URL and
HOLDFAST_TOPIC_PREFIX, else from the running stack's env file (written by \`npm start\`).
Run \`holdfast <command> --help\` for the options of each command.`;

function stackEnvFile(): Record<string, string> {
  try {
    const dir = process.env.HOLDFAST_CACHE ?? join(homedir(), '.cache', 'holdfast');
    return JSON.parse(readFileSync(join(dir, 'run', 'env.json'), 'utf8')) as Record<string, string>;
  } catch {
    return {};
  }
}

/** Postgres errors that mean "that id is not even an id": a usage error, not a crash. */
function isInvalidIdError(err: unknown): boolean {
  return (err as { code?: string }).code === '22P02';
}

/**
 * Runs the CLI in process and returns its exit code (tests drive this with their own env and io).
 *
 * @example
 * const code = await runCli(['accounts', 'list', '--json'], { DATABASE_URL: url });
 */
export async function runCli(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>> = process.env,
  io: CliIo = processIo,
  // Tests swap a command (e.g. `holdfast migrate` over an incomplete set of migrations).
  commands: readonly RegisterCommand[] = COMMANDS,
): Promise<number> {
  const program = new Command('holdfast')
    .description('Holdfast operator console and backfill client')
    .option('--json', 'print machine-readable JSON on stdout')
    .configureOutput({ writeOut: (s) => io.stdout(s), writeErr: (s) => io.stderr(s) })
    .showHelpAfterError('(add --help for usage)')
    .exitOverride()
    .addHelpText('after', EPILOGUE);
  let ctx: CliContext | undefined;
  const context = (): CliContext =>
    (ctx ??= createContext(env, Boolean(program.opts<{ json?: boolean }>().json), stackEnvFile(), io));
  for (const register of commands) register(program, context);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return EXIT.ok;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    if (err instanceof CliError) {
      io.stderr(`holdfast: ${err.message}\n`);
      return err.exitCode;
    }
    if (err instanceof ControlPlaneError) {
      io.stderr(`holdfast: ${err.message}\n`);
      return err.code === 'not_found' ? EXIT.notFound : EXIT.usage;
    }
    if (isInvalidIdError(err)) {
      io.stderr(`holdfast: ${(err as Error).message} (ids are UUIDs, as printed by the list commands)\n`);
      return EXIT.usage;
    }
    io.stderr(`holdfast: ${(err as Error).stack ?? String(err)}\n`);
    return EXIT.failure;
  } finally {
    await ctx?.close();
  }
}

// Run when executed directly (`node packages/cli/dist/main.js`); the npm bin goes through bin/holdfast.mjs.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await runCli(process.argv.slice(2));
}
