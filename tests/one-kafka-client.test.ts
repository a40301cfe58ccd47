// @platformatic/kafka is the one Kafka client (issue 26 item 4): no service or product package lists
// or imports kafkajs. kafkajs stays only where tests read the log through an implementation
// independent of the adapter under test: the root's devDependencies and @holdfast/testing.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '@holdfast/testing';

const VERIFIER_HOMES = new Set(['packages/testing']);

function workspaces(): string[] {
  return ['packages', 'services'].flatMap((dir) =>
    readdirSync(join(REPO_ROOT, dir))
      .map((name) => `${dir}/${name}`)
      .filter((w) => existsSync(join(REPO_ROOT, w, 'package.json'))),
  );
}

/** Product sources of a workspace: src/ without tests. */
function productSources(workspace: string): string[] {
  const src = join(REPO_ROOT, workspace, 'src');
  if (!existsSync(src)) return [];
  return (readdirSync(src, { recursive: true }) as string[])
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
    .map((f) => join(src, f));
}

describe('one Kafka client', () => {
  it('no workspace but the harness lists kafkajs among its dependencies', () => {
    const listing = workspaces().filter((w) => {
      if (VERIFIER_HOMES.has(w)) return false;
      const pkg = JSON.parse(readFileSync(join(REPO_ROOT, w, 'package.json'), 'utf8')) as Record<
        string,
        Record<string, string> | undefined
      >;
      return ['dependencies', 'devDependencies', 'peerDependencies'].some((k) => pkg[k]?.kafkajs);
    });
    expect(listing).toEqual([]);
  });

  it('no product source of a service or package imports kafkajs', () => {
    const importing = workspaces()
      .filter((w) => !VERIFIER_HOMES.has(w))
      .flatMap(productSources)
      .filter((f) => /from 'kafkajs'|import\('kafkajs'\)|require\('kafkajs'\)/.test(readFileSync(f, 'utf8')));
    expect(importing).toEqual([]);
  });

  it('@holdfast/kafka pins @platformatic/kafka to one version (the adapter relies on behaviour read in its source)', () => {
    const kafkaPkg = JSON.parse(readFileSync(join(REPO_ROOT, 'packages/kafka/package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    expect(kafkaPkg.dependencies['@platformatic/kafka']).toMatch(/^\d+\.\d+\.\d+$/);
  });
});
