import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * Starts a TypeScript entry point as a real child process, resolving workspace packages from source
 * (`--conditions=source`) through tsx, so tests can SIGKILL and restart services without a build.
 */
export function spawnTs(entry: string, env: Record<string, string>, { inherit = false } = {}): ChildProcess {
  return spawn(process.execPath, ['--conditions=source', '--import', 'tsx', entry], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: inherit ? 'inherit' : ['ignore', 'pipe', 'pipe'],
  });
}

export const REPO_ROOT = ROOT;
