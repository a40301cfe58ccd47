// Test support: services as real child processes (through spawnTs), and waiting on what they print.
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT, spawnTs } from '@holdfast/testing';

/** Entry points of the services the pipeline test runs. */
export const ENTRY = {
  gateway: join(REPO_ROOT, 'services/gateway/src/main.ts'),
  projector: join(REPO_ROOT, 'services/projector/src/main.ts'),
  recompute: join(REPO_ROOT, 'services/recompute/src/main.ts'),
} as const;

/** Starts `entry` and resolves once its output matches `pattern` (rejects on exit or timeout, with the output). */
export async function startProcess(
  entry: string,
  env: Record<string, string>,
  pattern: RegExp,
  ms = 90_000,
): Promise<{ child: ChildProcess; match: RegExpExecArray }> {
  const child = spawnTs(entry, env);
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(
      () => reject(new Error(`${entry}: no ${String(pattern)} within ${ms} ms:\n${seen}`)),
      ms,
    );
    const onData = (d: Buffer) => {
      seen += d.toString();
      const m = pattern.exec(seen);
      if (m) {
        clearTimeout(timer);
        resolve(m);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${entry} exited with ${code}:\n${seen}`));
    });
  });
  return { child, match };
}

/** SIGTERM, then SIGKILL after 10 s. */
export async function stopProcess(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

/** Polls `probe` until it returns a value (not undefined), or throws after `ms`. */
export async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  ms = 90_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
