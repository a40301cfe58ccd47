// npm run bench -- <name> [options]: runs bench/main.ts from source (no build needed).
import { spawnSync } from 'node:child_process';

const r = spawnSync(
  process.execPath,
  ['--conditions=source', '--import', 'tsx', 'bench/main.ts', ...process.argv.slice(2)],
  {
    stdio: 'inherit',
    env: { LOG_LEVEL: 'warn', ...process.env },
  },
);
process.exit(r.status ?? 1);
