// Runs before `npm start` and `npm test`: installs dependencies on a fresh clone (or after the lock changed).
import { execSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';

const marker = 'node_modules/.package-lock.json';
const stale = !existsSync(marker) || statSync('package-lock.json').mtimeMs > statSync(marker).mtimeMs + 1000;
if (stale) {
  console.error('[setup] installing dependencies (npm ci) ...');
  execSync('npm ci --no-audit --no-fund', { stdio: 'inherit' });
}
