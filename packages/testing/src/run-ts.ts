import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * Starts a TypeScript entry point as a real child process, resolving workspace packages from source
 * (`--conditions=source`) through tsx, so tests can SIGKILL and restart services without a build.
 */
export function spawnTs(
  entry: string,
  env: Record<string, string>,
  { inherit = false, unset = [] as readonly string[] } = {},
): ChildProcess {
  // `unset`: variables of this process the child must not see at all (not even empty).
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
  for (const name of unset) delete childEnv[name];
  return spawn(process.execPath, ['--conditions=source', '--import', 'tsx', entry], {
    cwd: ROOT,
    env: childEnv,
    stdio: inherit ? 'inherit' : ['ignore', 'pipe', 'pipe'],
  });
}

export const REPO_ROOT = ROOT;
