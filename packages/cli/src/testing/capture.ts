import type { Readable } from 'node:stream';
import type { RegisterCommand } from '../commands/index.js';
import { runCli } from '../main.js';

/** The outcome of one in-process CLI run. */
export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  /** stdout parsed as JSON (for `--json` runs). */
  json<T = unknown>(): T;
}

/**
 * Runs `holdfast <argv>` in process with `env`, capturing stdout and stderr (tests assert exact output).
 *
 * @example
 * const r = await runCaptured(['accounts', 'list', '--json'], t.env);
 * expect(r.code).toBe(0);
 */
export async function runCaptured(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  opts: { stdin?: Readable; tty?: boolean; commands?: readonly RegisterCommand[] } = {},
): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(
    argv,
    env,
    {
      stdout: (t) => void (stdout += t),
      stderr: (t) => void (stderr += t),
      stderrIsTTY: opts.tty ?? false,
      stdin: opts.stdin,
    },
    opts.commands,
  );
  return { code, stdout, stderr, json: <T>() => JSON.parse(stdout) as T };
}
