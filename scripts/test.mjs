// npm test: type-check, lint, format check, then every test tier against the real stack
// (vitest's global setup starts Kafka, the registry and PostgreSQL when they are not running).
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { ensureSystemTools } from './ensure-system-tools.mjs';

// `npm test` runs this on the project's Node 24 (the `node` devDependency, first on PATH in npm scripts).
if (Number(process.versions.node.split('.')[0]) < 22) {
  console.error(
    `npm test needs Node 22+, this is ${process.version}: run it as \`npm test\` (which uses Node 24)`,
  );
  process.exit(1);
}
console.log(`Node ${process.version} (${process.execPath})`);
const args = process.argv.slice(2);
// The three checks are independent and each single-threaded: run side by side on 2 cores, the step
// takes about as long as the slowest (ESLint's type-aware pass) instead of their sum. Each one's output is printed
// whole when it ends, so the lines do not interleave. ESLint caches its results per file (by content)
// under node_modules/.cache: a re-run lints the changed files only. Its type-aware rules can see a
// change in another file's types, which the cache does not notice; CI starts without a cache.
const steps = [
  ['type-check', 'npx', ['tsc', '-b']],
  [
    'lint',
    'npx',
    [
      'eslint',
      '.',
      '--max-warnings=0',
      '--cache',
      '--cache-strategy=content',
      '--cache-location=node_modules/.cache/eslint/',
    ],
  ],
  ['format', 'npx', ['prettier', '--check', '.', '--log-level=warn']],
];
const started = Date.now();

function runStep([name, cmd, cmdArgs]) {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const child = spawn(cmd, cmdArgs, { stdio: ['ignore', 'pipe', 'pipe'] });
    const out = [];
    child.stdout.on('data', (d) => out.push(d));
    child.stderr.on('data', (d) => out.push(d));
    child.on('close', (code, signal) => {
      const s = Math.round((Date.now() - t0) / 1000);
      console.log(`\n== ${name}: ${cmd} ${cmdArgs.join(' ')} (${s} s, ${code === 0 ? 'ok' : 'FAILED'})`);
      process.stdout.write(Buffer.concat(out));
      resolve({ name, status: code ?? (signal ? 1 : 0) });
    });
    child.on('error', (err) => {
      console.error(`\n${name}: ${err.message}`);
      resolve({ name, status: 1 });
    });
  });
}

if (!args.includes('--tests-only')) {
  console.log(`\n== checks: ${steps.map(([name]) => name).join(', ')} (side by side)`);
  const failed = (await Promise.all(steps.map(runStep))).filter((r) => r.status !== 0);
  if (failed.length) {
    console.error(`\n${failed.map((r) => r.name).join(', ')} failed`);
    process.exit(failed[0].status);
  }
  console.log(`checks took ${Math.round((Date.now() - started) / 1000)} s`);
}
if (args.includes('--tests-only')) {
  // The tests read what tsc -b builds (tests/product-has-no-test-code.test.ts inspects services/*/dist):
  // build first even when the other checks are skipped (incremental: quick when nothing changed).
  const build = spawnSync('npx', ['tsc', '-b'], { stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}
ensureSystemTools();
const report = 'node_modules/.cache/holdfast-vitest.json';
rmSync(report, { force: true });
console.log('\n== tests: vitest run (unit, integration, e2e)');
const r = spawnSync(
  'npx',
  [
    'vitest',
    'run',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${report}`,
    ...args.filter((a) => a !== '--tests-only'),
  ],
  { stdio: 'inherit' },
);
try {
  const j = JSON.parse(readFileSync(report, 'utf8'));
  const skipped = j.numPendingTests + j.numTodoTests;
  // A file that fails before its tests run (an import or a missing fixture) fails no test: name it.
  const brokenFiles = (j.testResults ?? []).filter(
    (f) => f.status === 'failed' && (f.assertionResults ?? []).every((a) => a.status !== 'failed'),
  );
  for (const f of brokenFiles) console.log(`test file failed before its tests ran: ${f.name}`);
  console.log(
    `\ntests: ${j.numPassedTests} passed, ${j.numFailedTests + brokenFiles.length} failed${skipped ? `, ${skipped} skipped` : ''}`,
  );
} catch {
  /* vitest failed before writing its report; its own output says why */
}
console.log(`npm test took ${Math.round((Date.now() - started) / 1000)} s`);
process.exit(r.status ?? 1);
