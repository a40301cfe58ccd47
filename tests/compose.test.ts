import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderCompose } from '../infra/lib/compose.mjs';

describe('docker-compose.yml', () => {
  it('is generated from infra/settings.json (run `node infra/cli.mjs compose` after changing it)', () => {
    expect(readFileSync('docker-compose.yml', 'utf8')).toBe(renderCompose());
  });
});
