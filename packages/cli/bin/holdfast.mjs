#!/usr/bin/env node
// The npm bin. A committed file rather than dist/main.js itself, so that `npm ci` on a fresh clone can
// mark it executable before anything is built; it runs the built CLI.
let main;
try {
  main = await import('../dist/main.js');
} catch (err) {
  if (err?.code === 'ERR_MODULE_NOT_FOUND' && String(err.message).includes('dist/main.js')) {
    console.error('holdfast: the CLI is not built yet: run `npm run build` at the repository root');
    process.exit(1);
  }
  throw err;
}
process.exitCode = await main.runCli(process.argv.slice(2));
