import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderCompose } from '../infra/lib/compose.mjs';

const text = readFileSync('docker-compose.yml', 'utf8');

/** The top-level blocks under `services:`, by name (the file is generated, so its layout is known). */
function serviceBlocks(): Map<string, string> {
  const body = text.slice(text.indexOf('\nservices:\n'), text.indexOf('\nvolumes:\n'));
  const blocks = new Map<string, string>();
  for (const m of body.matchAll(/^ {2}([a-z]+):\n((?: {4}.*\n|\s*\n)*)/gm)) blocks.set(m[1]!, m[2]!);
  return blocks;
}

/** An empty .env, so a developer's own .env cannot satisfy the required variable. */
function emptyEnvFile(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'hf-compose-')), '.env');
  writeFileSync(file, '');
  return file;
}

/** A real compose implementation, when this machine has one (CI installs Debian's docker-compose). */
function composeBinary(): string[] | null {
  for (const cmd of [['docker-compose'], ['docker', 'compose']]) {
    const r = spawnSync(cmd[0]!, [...cmd.slice(1), 'version'], { encoding: 'utf8' });
    if (r.status === 0) return cmd;
  }
  return null;
}

describe('docker-compose.yml', () => {
  it('is generated from infra/settings.json (run `node infra/cli.mjs compose` after changing it)', () => {
    expect(text).toBe(renderCompose());
  });

  it('publishes nothing on all interfaces: every port is bound to 127.0.0.1', () => {
    const published = [...text.matchAll(/ports: \[([^\]]*)\]/g)].flatMap((m) =>
      m[1]!.split(',').map((p) => p.trim().replace(/"/g, '')),
    );
    expect(published).toEqual([
      '127.0.0.1:5432:5432',
      '127.0.0.1:9092:9094',
      '127.0.0.1:8081:8081',
      '127.0.0.1:8080:8080',
      '127.0.0.1:8090:8090',
    ]);
  });

  it('every long-running container has a healthcheck and a restart policy; services wait for healthy dependencies', () => {
    const blocks = serviceBlocks();
    expect([...blocks.keys()]).toEqual([
      'postgres',
      'kafka',
      'registry',
      'migrate',
      'gateway',
      'projector',
      'recompute',
      'dispatcher',
      'console',
    ]);
    for (const [name, block] of blocks) {
      if (name === 'migrate') {
        expect(block).toContain('restart: "no"');
        expect(block).not.toContain('healthcheck:');
        continue;
      }
      expect(block, name).toContain('restart: unless-stopped');
      expect(block, name).toContain('healthcheck:');
    }
    for (const name of ['gateway', 'projector', 'recompute', 'dispatcher']) {
      const block = blocks.get(name)!;
      expect(block).toContain('postgres: { condition: service_healthy }');
      expect(block).toContain('kafka: { condition: service_healthy }');
      expect(block).toContain('registry: { condition: service_healthy }');
      expect(block).toContain('migrate: { condition: service_completed_successfully }');
      // Its own PostgreSQL role, its password from a secret file, its /healthz on the ops port.
      expect(block).toContain(`DATABASE_URL: postgres://holdfast_${name}@postgres:5432/holdfast`);
      expect(block).toContain(`secrets: [${name}_db_password, `);
      expect(block).toContain("fetch('http://127.0.0.1:9400/healthz')");
    }
    // Each service its own key lists as secret files, as deploy/kubernetes gives them: the public
    // gateway never the secrets master key; personal data sealed (gateway) and opened (projector).
    const keysOf = (name: string) =>
      [...blocks.get(name)!.matchAll(/^ {6}(HOLDFAST_[A-Z_]+_KEYS)_FILE: \/run\/secrets\/([a-z_]+)$/gm)].map(
        (m) => `${m[1]}=${m[2]}`,
      );
    expect(keysOf('gateway')).toEqual([
      'HOLDFAST_UNSUBSCRIBE_KEYS=unsubscribe_keys',
      'HOLDFAST_INBOUND_KEYS=inbound_keys',
      'HOLDFAST_PRIVACY_KEYS=privacy_keys',
    ]);
    expect(keysOf('projector')).toEqual(['HOLDFAST_PRIVACY_KEYS=privacy_keys']);
    expect(keysOf('recompute')).toEqual([
      'HOLDFAST_SECRETS_KEYS=secrets_keys',
      'HOLDFAST_UNSUBSCRIBE_KEYS=unsubscribe_keys',
    ]);
    expect(keysOf('dispatcher')).toEqual(['HOLDFAST_SECRETS_KEYS=secrets_keys']);
    for (const name of ['gateway', 'projector', 'recompute', 'dispatcher'])
      for (const k of keysOf(name)) expect(blocks.get(name), k).toContain(`, ${k.split('=')[1]}`);
    for (const n of ['secrets_keys', 'unsubscribe_keys', 'inbound_keys', 'privacy_keys', 'console_keys'])
      expect(text).toContain(`\n  ${n}: { file: ./.secrets/${n} }\n`);
    // The console: PostgreSQL only (no Kafka, no registry to wait for), its own role and secret.
    const consoleBlock = blocks.get('console')!;
    expect(consoleBlock).toContain('DATABASE_URL: postgres://holdfast_console@postgres:5432/holdfast');
    expect(consoleBlock).toContain('secrets: [console_db_password, console_keys]');
    // Its own keys (the TOTP secrets at rest), never the secrets master key.
    expect(keysOf('console')).toEqual(['HOLDFAST_CONSOLE_KEYS=console_keys']);
    expect(consoleBlock).toContain('migrate: { condition: service_completed_successfully }');
    expect(consoleBlock).not.toContain('kafka: { condition');
    expect(blocks.get('registry')).toContain('jdbc:postgresql://postgres:5432/holdfast_registry');
    expect(blocks.get('postgres')).toContain('pgdata:/var/lib/postgresql/data');
    expect(blocks.get('kafka')).toContain('kafkadata:/var/lib/kafka/data');
    // No host directory (node_modules above all) is mounted into a Node container.
    for (const name of ['migrate', 'gateway', 'projector', 'recompute', 'dispatcher', 'console'])
      expect(blocks.get(name)).not.toContain('volumes:');
  });

  const compose = composeBinary();
  // Reported as skipped (not passed) where no compose binary exists; CI installs Debian's docker-compose.
  it.skipIf(!compose)(
    'is valid for a real compose implementation (`config -q`)',
    () => {
      const [cmd, ...pre] = compose!;
      const env: NodeJS.ProcessEnv = { ...process.env, HOLDFAST_REGISTRY_DB_PASSWORD: 'validate-only' };
      const ok = spawnSync(cmd!, [...pre, '-f', 'docker-compose.yml', 'config', '-q'], {
        encoding: 'utf8',
        env,
      });
      expect(ok.stderr + ok.stdout).toBe('');
      expect(ok.status).toBe(0);
      // Without the registry's password it refuses to render rather than start with an empty one.
      delete env.HOLDFAST_REGISTRY_DB_PASSWORD;
      const missing = spawnSync(
        cmd!,
        [...pre, '-f', 'docker-compose.yml', '--env-file', emptyEnvFile(), 'config', '-q'],
        {
          encoding: 'utf8',
          env,
        },
      );
      expect(missing.status).not.toBe(0);
      expect(missing.stderr).toContain('run infra/compose/make-secrets.sh');
    },
    60_000,
  );
});
