// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX, { createNodeResolver } from 'eslint-plugin-import-x';
import globals from 'globals';

// Modules that do I/O (or hold a process-wide resource): the pure packages may not import them.
const ioModules = [
  'pg',
  'pg-copy-streams',
  '@platformatic/kafka',
  'kafkajs',
  '@kafkajs/confluent-schema-registry',
  'express',
  'kysely',
  'pino',
  'prom-client',
  'undici',
  'nodemailer',
  'fs',
  'http',
  'https',
  'net',
  'child_process',
];
const services = ['@holdfast/gateway', '@holdfast/projector', '@holdfast/recompute', '@holdfast/dispatcher'];
// Workspace packages that do I/O. @holdfast/contracts' root entry loads the registry codec, so the
// pure packages take its types only, and its pure validators and limits from @holdfast/contracts/http.
const ioPackages = [
  '@holdfast/postgres',
  '@holdfast/secrets',
  '@holdfast/control-plane',
  '@holdfast/campaign-store',
  '@holdfast/webhook-deliveries',
  '@holdfast/kafka',
  '@holdfast/platform',
  '@holdfast/testing',
  '@holdfast/cli',
  '@holdfast/read-models',
];
// Everywhere, whatever else a block restricts: a package is imported by its name, never by its files.
const deepImportBan = { group: ['@holdfast/*/src/*'], message: 'Import the package, not its files.' };
const pureImports = {
  paths: [
    ...ioModules.map((name) => ({ name, message: 'A pure package does no I/O.' })),
    ...[...ioPackages, ...services].map((name) => ({
      name,
      message: 'A pure package does no I/O, even through another package.',
    })),
    {
      name: '@holdfast/contracts',
      allowTypeImports: true,
      message: 'Its root entry loads the registry codec: take values from @holdfast/contracts/http.',
    },
  ],
  patterns: [{ group: ['node:*'], message: 'A pure package does no I/O.' }, deepImportBan],
};

export default tseslint.config(
  {
    ignores: [
      '.holdfast/**',
      '**/*.d.ts',
      '**/*.d.mts',
      '**/dist/**',
      '**/node_modules/**',
      'bench-results/**',
      'coverage/**',
      '**/*.js',
      '**/*.cjs',
      'vitest.config.ts',
      'services/gateway/src/pixel/loader/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      // Without a resolver that maps './x.js' to './x.ts' (and package names to their sources),
      // import-x/no-cycle resolves nothing and passes every file (so did it before).
      'import-x/resolver-next': [
        createNodeResolver({
          extensionAlias: { '.js': ['.ts', '.js'] },
          conditionNames: ['source', 'types', 'import', 'default'],
        }),
      ],
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'separate-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'import-x/no-cycle': 'error',
      'import-x/no-relative-packages': 'error',
      // kafkajs and express hand out methods to destructure; they do not depend on `this`.
      '@typescript-eslint/unbound-method': 'off',
      'no-restricted-imports': ['error', { patterns: [deepImportBan] }],
    },
  },
  {
    // Pure packages (and the pure part of contracts they use): no I/O, not even through another
    // workspace package.
    files: [
      'packages/domain/src/**/*.ts',
      'packages/analytics/src/**/*.ts',
      'packages/charts/src/**/*.ts',
      'packages/dashboards/src/**/*.ts',
      'packages/local-time/src/**/*.ts',
      'packages/contracts/src/http/**/*.ts',
    ],
    // Tests and their support (packages/analytics/src/testing reads the CDNOW files) are not shipped.
    ignores: ['**/*.test.ts', 'packages/analytics/src/testing/**'],
    rules: {
      'no-restricted-imports': 'off',
      '@typescript-eslint/no-restricted-imports': ['error', pureImports],
    },
  },
  {
    // Packages never import services (the arrows point from services to packages).
    files: ['packages/**/*.ts'],
    ignores: [
      'packages/domain/src/**',
      'packages/analytics/src/**',
      'packages/charts/src/**',
      'packages/dashboards/src/**',
      'packages/local-time/src/**',
      'packages/contracts/src/http/**',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: services.map((name) => ({ name, message: 'Packages never import services.' })),
          patterns: [
            deepImportBan,
            { group: ['**/services/**'], message: 'Packages never import services.' },
          ],
        },
      ],
    },
  },
  {
    // No master key at the public edge (docs/security.md): the gateway loads HOLDFAST_UNSUBSCRIBE_KEYS
    // and HOLDFAST_INBOUND_KEYS only, never HOLDFAST_SECRETS_KEYS nor what opens with it. Its tests
    // may still seal with a master keyring, as the CLI does.
    files: ['services/gateway/src/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '@holdfast/secrets',
              importNames: [
                'defaultSecretsKeyring',
                'loadSecretsKeyring',
                'parseSecretsKeys',
                'legacyUnsubscribeKeys',
              ],
              message: 'The gateway holds no master key: use config.unsubscribeKeys or config.inboundKeys.',
            },
            {
              name: '@holdfast/control-plane',
              importNames: ['loadProviderConnections'],
              message: 'The gateway holds no master key: use config.unsubscribeKeys or config.inboundKeys.',
            },
          ],
          patterns: [deepImportBan],
        },
      ],
    },
  },
  {
    files: ['packages/testing/src/global-setup.ts'],
    rules: { 'import-x/no-relative-packages': 'off' },
  },
  {
    // The test harness starts services under test (one way each): the one place a package imports
    // services. It sits above them in the graph, and nothing shipped imports it (the next block).
    files: ['packages/testing/src/services/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [deepImportBan] }] },
  },
  {
    // Product code never imports the test harness (it would ship test code and pull services into
    // packages). Tests and packages' own test support may.
    files: ['services/*/src/**/*.ts', 'packages/*/src/**/*.ts'],
    ignores: ['**/*.test.ts', 'packages/testing/**', 'packages/*/src/testing/**'],
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            {
              target: '.',
              from: './packages/testing',
              message: 'Product code never imports the test harness.',
            },
          ],
        },
      ],
    },
  },
  {
    // Benchmarks and the system tests are tooling at the root: they drive services' own test tools
    // by path.
    files: ['bench/**/*.ts', 'tests/**/*.ts'],
    rules: { 'import-x/no-relative-packages': 'off' },
  },
  {
    // The plain-JS tooling (infra/, scripts/, the CLI's launcher, the examples) is linted too, without
    // the type-aware rules: there are no types to check.
    files: ['**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      globals: globals.node,
    },
  },
  {
    files: ['**/*.test.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
);
