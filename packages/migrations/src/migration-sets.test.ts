import { describe, expect, it } from 'vitest';
import {
  MigrationSetMissingError,
  REQUIRED_MIGRATION_SETS,
  requireMigrationSets,
  SERVICE_MIGRATIONS,
  type ServiceMigrations,
} from './index.js';

describe('requireMigrationSets (holdfast migrate runs only with every set)', () => {
  it('given every set of the package, then all are returned in order', () => {
    expect(requireMigrationSets(SERVICE_MIGRATIONS).map((s) => s.name)).toEqual([
      'analytics',
      'campaigns',
      'sync-work',
      'dispatcher',
    ]);
    expect(REQUIRED_MIGRATION_SETS).toEqual(['analytics', 'campaigns', 'sync-work', 'dispatcher']);
  });

  it('given the dispatcher set missing, then it fails naming it', () => {
    const sets = SERVICE_MIGRATIONS.filter((s) => s.name !== 'dispatcher');
    expect(() => requireMigrationSets(sets)).toThrow(new MigrationSetMissingError(['dispatcher']));
    expect(() => requireMigrationSets(sets)).toThrow(
      'migration set dispatcher missing: nothing was migrated (is the installation complete?)',
    );
  });

  it('given a set without a migrate function (a broken install), then it counts as missing', () => {
    const broken = SERVICE_MIGRATIONS.map((s) =>
      s.name === 'campaigns' ? ({ ...s, migrate: undefined } as unknown as ServiceMigrations) : s,
    );
    expect(() => requireMigrationSets(broken)).toThrow('migration set campaigns missing');
  });

  it('given no sets at all, then every required one is named', () => {
    expect(() => requireMigrationSets([])).toThrow(
      'migration sets analytics, campaigns, sync-work, dispatcher missing',
    );
  });
});
