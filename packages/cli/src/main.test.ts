import { describe, expect, it } from 'vitest';
import { runCaptured } from './testing/capture.js';

// No database: help and usage errors are answered before any connection is made.
const env = { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' };

describe('holdfast --help', () => {
  it('lists the commands and documents the exit codes', async () => {
    const r = await runCaptured(['--help'], env);
    expect(r.code).toBe(0);
    for (const c of [
      'accounts',
      'keys',
      'tiles',
      'pixel',
      'webhooks',
      'providers',
      'secrets',
      'migrate',
      'sync',
      'backfill',
      'analysts',
      'dev',
    ])
      expect(r.stdout).toMatch(new RegExp(`^  ${c}\\b`, 'm'));
    expect(r.stdout).toContain(
      'Exit codes:\n  0  success\n  1  runtime failure (database, Kafka or ingest endpoint unreachable, retries exhausted, interrupted)\n' +
        '  2  usage error or rule violation (bad option, limit reached, ingest rejected a batch with a 4xx)\n' +
        '  3  not found (no such account, key, pixel key, subscription, tile or file)\n',
    );
  });

  it.each([
    ['accounts', 'create'],
    ['keys', 'rotate'],
    ['tiles', 'status'],
    ['pixel', 'create-key'],
    ['webhooks', 'subscribe'],
    ['providers', 'connect'],
    ['webhooks', 'redeliver'],
    ['secrets', 'rewrap'],
    ['dev', 'fixture'],
    ['analysts', 'grant'],
    ['analysts', 'list'],
    ['backfill'],
    ['sync'],
    ['migrate'],
  ])('answers --help for %s %s', async (...words) => {
    const r = await runCaptured([...words.filter(Boolean), '--help'], env);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: holdfast /);
  });

  it('exits 2 on usage errors, with the problem on stderr', async () => {
    const unknown = await runCaptured(['frobnicate'], env);
    expect([unknown.code, unknown.stdout]).toEqual([2, '']);
    expect(unknown.stderr).toContain("error: unknown command 'frobnicate'");
    const missing = await runCaptured(['accounts', 'create'], env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("error: required option '--name <name>' not specified");
    const group = await runCaptured(['keys'], env);
    expect(group.code).toBe(2);
    expect(group.stderr).toContain('Usage: holdfast keys [options] [command]');
  });
});
