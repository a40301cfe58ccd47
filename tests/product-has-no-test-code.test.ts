// The built services ship no test, bench or fixture code (issue 26): every file name and every exported
// symbol of services/*/dist, as `tsc -b` left it, is checked. It builds nothing itself; `npm test` runs
// `tsc -b` before the tests (scripts/test.mjs), and a missing dist/ fails here rather than passing.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '@holdfast/testing';

/** Words that name test, bench or fixture code, in a file name or an identifier. */
const TEST_WORDS = new Set([
  'test',
  'tests',
  'testing',
  'bench',
  'benchmark',
  'fixture',
  'fixtures',
  'fake',
  'mock',
  'stub',
  'harness',
]);

/** `runProjectorBench` → run, projector, bench; `test-support/events.js` → test, support, events, js. */
export function wordsOf(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w.toLowerCase());
}

export interface BuiltFile {
  /** Path relative to the service's dist/. */
  readonly path: string;
  /** The .d.ts text (declarations) of the file, '' for other files. */
  readonly declarations: string;
}

/** Names a declaration file exports: `export declare function x`, `export { a, b as c }`, … */
export function exportedNames(declarations: string): string[] {
  const names: string[] = [];
  for (const m of declarations.matchAll(
    /export\s+(?:declare\s+)?(?:abstract\s+)?(?:function|const|let|class|interface|type|enum|namespace)\s+([A-Za-z0-9_$]+)/g,
  ))
    names.push(m[1]!);
  for (const m of declarations.matchAll(/export\s+(?:type\s+)?\{([^}]*)\}/g))
    for (const part of m[1]!.split(',')) {
      const name = part
        .trim()
        .split(/\s+as\s+/)
        .pop()
        ?.replace(/^type\s+/, '');
      if (name) names.push(name);
    }
  return names;
}

/** What in a built service is test, bench or fixture code: offending file names and exported symbols. */
export function testCodeIn(files: readonly BuiltFile[]): string[] {
  const found: string[] = [];
  for (const f of files) {
    if (wordsOf(f.path).some((w) => TEST_WORDS.has(w))) found.push(`file ${f.path}`);
    for (const name of exportedNames(f.declarations))
      if (wordsOf(name).some((w) => TEST_WORDS.has(w))) found.push(`symbol ${name} (${f.path})`);
  }
  return [...new Set(found)];
}

function builtFiles(dist: string): BuiltFile[] {
  return readdirSync(dist, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => {
      const abs = join(e.parentPath, e.name);
      const path = relative(dist, abs);
      return { path, declarations: path.endsWith('.d.ts') ? readFileSync(abs, 'utf8') : '' };
    });
}

const SERVICES = readdirSync(join(REPO_ROOT, 'services'), { withFileTypes: true })
  .filter((e) => e.isDirectory() && existsSync(join(REPO_ROOT, 'services', e.name, 'package.json')))
  .map((e) => e.name);

describe('the rule: what is test, bench or fixture code', () => {
  it('given a build holding a test file, a bench module and a fixture export, names each', () => {
    const found = testCodeIn([
      {
        path: 'index.d.ts',
        declarations: 'export { runProjectorBench } from "./x.js";\nexport declare const latest = 1;',
      },
      { path: 'test-support/events.js', declarations: '' },
      {
        path: 'orders.d.ts',
        declarations: 'export declare function orderFixture(): void;\nexport interface Order {}',
      },
      { path: 'runtime/runner.test.js', declarations: '' },
      { path: 'runtime/runner.js', declarations: '' },
    ]);
    expect(found).toEqual([
      'symbol runProjectorBench (index.d.ts)',
      'file test-support/events.js',
      'symbol orderFixture (orders.d.ts)',
      'file runtime/runner.test.js',
    ]);
  });

  it('given product names that merely contain the letters (latest, contest, attestation), finds nothing', () => {
    expect(
      testCodeIn([
        {
          path: 'latest-rates.d.ts',
          declarations: 'export declare function contest(): void;\nexport type Attestation = 1;',
        },
      ]),
    ).toEqual([]);
  });
});

describe('the built services (services/*/dist after tsc -b)', () => {
  it('finds every service', () => {
    expect(SERVICES).toEqual(
      expect.arrayContaining(['gateway', 'projector', 'recompute', 'dispatcher', 'console']),
    );
  });

  it.each(SERVICES)('%s ships no test, bench or fixture code', (service) => {
    const dist = join(REPO_ROOT, 'services', service, 'dist');
    // A missing build would pass vacuously: fail and say how to build (npm test runs tsc -b first).
    expect(existsSync(join(dist, 'index.js')), `${dist} is not built: run \`tsc -b\``).toBe(true);
    // Files of an earlier build stay in dist/ after their source moved: a clean build shows whether
    // they are stale (rm -rf services/*/dist && tsc -b).
    expect(testCodeIn(builtFiles(dist))).toEqual([]);
  });
});
