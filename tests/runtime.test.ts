// The project runs on Node 22+ (24 by default: the `node` devDependency, which `npm run` and `npx` put
// first on PATH), whatever the system Node is: the test workers, the `node` a script or a bin's
// `#!/usr/bin/env node` finds, and the tools `npm test` runs through npx.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { satisfies } from '../scripts/ensure-installed.mjs';

function major(version: string): number {
  return Number(/v?(\d+)\./.exec(version)?.[1]);
}

function run(cmd: string, args: string[]): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 60_000 });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.trim();
}

describe('the Node.js runtime', () => {
  it('runs the test workers on Node 22 or later', () => {
    console.log(`vitest worker: Node ${process.version} (${process.execPath})`);
    expect(major(process.version)).toBeGreaterThanOrEqual(22);
  });

  it('is the `node` on PATH, so children spawned by name and bins run on it too', () => {
    const onPath = run('node', ['-p', 'process.version']);
    expect(major(onPath)).toBeGreaterThanOrEqual(22);
    expect(run('npx', ['tsx', '-e', 'console.log(process.version)'])).toBe(onPath);
    // eslint (like tsc and vitest) starts through `#!/usr/bin/env node`.
    const eslint = run('npx', ['eslint', '--env-info']);
    expect(eslint).toMatch(new RegExp(`Node version:\\s+${onPath.replaceAll('.', '\\.')}`));
  }, 120_000);

  it('is what package.json engines allows, and the setup tells a version too old from one that will do', () => {
    const engines = '^22.22.0 || ^24.0.0 || >=26';
    expect(satisfies(process.versions.node, engines)).toBe(true);
    expect(satisfies('20.20.2', engines)).toBe(false);
    expect(satisfies('22.12.0', engines)).toBe(false);
    expect(satisfies('22.22.0', engines)).toBe(true);
    expect(satisfies('23.11.0', engines)).toBe(false);
    expect(satisfies('24.0.0', engines)).toBe(true);
    expect(satisfies('25.1.0', engines)).toBe(false);
    expect(satisfies('26.10.0', engines)).toBe(true);
    expect(satisfies('24.0.0', 'latest')).toBe(false);
  });
});
