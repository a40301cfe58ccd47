// Runs before `npm start` and `npm test`: installs dependencies on a fresh clone (or after the lock changed).
//
// The project runs on the Node.js of the `node` devDependency (Node 24 from the npm registry): `npm run`
// puts node_modules/.bin first on PATH, so `node`, `npx` and every bin of a script resolve to it. This
// script itself may still run on an older system Node (it is what `npm start` finds on PATH before
// anything is installed), and dependencies that need Node 22+ would then warn (EBADENGINE) or fail at
// install; so when the current Node does not satisfy package.json `engines.node`, the install runs on
// Node 24: the project's own copy when one is installed, else one fetched first into the cache.
import { execFileSync, execSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Whether `version` (x.y.z) satisfies a range made of `^x.y.z`, `>=x[.y[.z]]` terms joined by `||`. */
export function satisfies(version, range) {
  const v = version.split('.').map(Number);
  const cmp = (a, b) => a.reduce((r, x, i) => r || Math.sign(x - (b[i] ?? 0)), 0);
  return range.split('||').some((term) => {
    const m = /^\s*(\^|>=)\s*(\d+(?:\.\d+){0,2})\s*$/.exec(term);
    if (!m) return false;
    const min = m[2].split('.').map(Number);
    while (min.length < 3) min.push(0);
    return cmp(v, min) >= 0 && (m[1] === '>=' || v[0] === min[0]);
  });
}

const runtimeBin = resolve('node_modules/node/bin');

function nodeVersion(bin) {
  if (!existsSync(join(bin, 'node'))) return undefined;
  try {
    return execFileSync(join(bin, 'node'), ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim();
  } catch {
    return undefined;
  }
}

/** A directory holding a `node` of the pinned runtime version, fetched from the npm registry if needed. */
function fetchRuntime(version) {
  const cache = process.env.HOLDFAST_CACHE ?? join(homedir(), '.cache', 'holdfast');
  const dir = join(cache, 'runtime', `node-${version}`);
  const bin = join(dir, 'node_modules', 'node', 'bin');
  if (nodeVersion(bin) === version) return bin;
  console.error(
    `[setup] Node ${process.versions.node} is too old here: fetching Node ${version} (npm package node) ...`,
  );
  // Into a private directory first, renamed at the end: a concurrent setup never sees half a runtime.
  const tmp = `${dir}.${process.pid}.tmp`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  const pkg = {
    name: 'holdfast-runtime',
    private: true,
    dependencies: { node: version },
    allowScripts: { node: true },
  };
  writeFileSync(join(tmp, 'package.json'), JSON.stringify(pkg, null, 2));
  execSync('npm install --no-audit --no-fund --no-package-lock --loglevel=error', {
    cwd: tmp,
    stdio: 'inherit',
  });
  rmSync(dir, { recursive: true, force: true });
  try {
    renameSync(tmp, dir);
  } catch (err) {
    if (nodeVersion(bin) !== version) throw err;
    rmSync(tmp, { recursive: true, force: true }); // another setup won the race
  }
  return bin;
}

/** The directory of the `node` the install should run on; undefined when the current one will do. */
function installNode() {
  const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
  const engines = pkg.engines?.node ?? '*';
  if (engines === '*' || satisfies(process.versions.node, engines)) return undefined;
  const own = nodeVersion(runtimeBin);
  if (own && satisfies(own, engines)) return runtimeBin;
  // The version the lock pins (else the lowest the range allows, before a lock exists).
  const lock = existsSync('package-lock.json') ? JSON.parse(readFileSync('package-lock.json', 'utf8')) : {};
  const pinned =
    lock.packages?.['node_modules/node']?.version ?? pkg.devDependencies?.node?.replace(/^[\^~]/, '');
  if (!pinned)
    throw new Error(
      `Node ${process.versions.node} does not satisfy engines ${engines}, and no runtime is pinned`,
    );
  return fetchRuntime(pinned);
}

function ensureInstalled() {
  const marker = 'node_modules/.package-lock.json';
  const stale =
    !existsSync(marker) ||
    !existsSync(join(runtimeBin, 'node')) ||
    statSync('package-lock.json').mtimeMs > statSync(marker).mtimeMs + 1000;
  if (!stale) return;
  const bin = installNode();
  const env = bin ? { ...process.env, PATH: `${bin}${delimiter}${process.env.PATH}` } : process.env;
  // `npm install`, not `npm ci`: npm 11 writes lock files that omit the optional platform packages of
  // some dependencies (@unrs/resolver-binding-*) and then refuses them in `npm ci`. The lock still
  // pins every version that is installed.
  const on = bin ? nodeVersion(bin) : process.versions.node;
  console.error(`[setup] installing dependencies (npm install on Node ${on}) ...`);
  execSync('npm install --no-audit --no-fund', { stdio: 'inherit', env });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) ensureInstalled();
