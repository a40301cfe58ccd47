// npm test: type-check, lint, format check, then every test tier against the real stack
// (vitest's global setup starts Kafka, the registry and PostgreSQL when they are not running).
import { spawnSync } from 'node:child_process';
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
const steps = [
  ['type-check', 'npx', ['tsc', '-b']],
  ['lint', 'npx', ['eslint', '.', '--max-warnings=0']],
  ['format', 'npx', ['prettier', '--check', '.', '--log-level=warn']],
];
const started = Date.now();
if (!args.includes('--tests-only')) {
  for (const [name, cmd, cmdArgs] of steps) {
    console.log(`\n== ${name}: ${cmd} ${cmdArgs.join(' ')}`);
    const r = spawnSync(cmd, cmdArgs, { stdio: 'inherit' });
    if (r.status !== 0) {
      console.error(`\n${name} failed`);
      process.exit(r.status ?? 1);
    }
  }
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
