// Runs before `npm start` and `npm test`: installs dependencies on a fresh clone (or after the lock changed).
import { execSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';

const marker = 'node_modules/.package-lock.json';
const stale = !existsSync(marker) || statSync('package-lock.json').mtimeMs > statSync(marker).mtimeMs + 1000;
if (stale) {
  // `npm install`, not `npm ci`: npm 11 writes lock files that omit the optional platform packages of
  // some dependencies (@unrs/resolver-binding-*) and then refuses them in `npm ci`. The lock still
  // pins every version that is installed.
  console.error('[setup] installing dependencies (npm install) ...');
  execSync('npm install --no-audit --no-fund', { stdio: 'inherit' });
}
