// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';

const ioModules = ['node:*', 'pg', 'kafkajs', 'express', 'kysely', 'pino', 'fs', 'http', 'net'];

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
      '**/*.mjs',
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
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'separate-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'import-x/no-cycle': 'error',
      // kafkajs and express hand out methods to destructure; they do not depend on `this`.
      '@typescript-eslint/unbound-method': 'off',
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['@holdfast/*/src/*'], message: 'Import the package, not its files.' }] },
      ],
    },
  },
  {
    // Pure packages: no I/O, no clock, no randomness from the runtime.
    files: ['packages/domain/src/**/*.ts', 'packages/analytics/src/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: ioModules.filter((m) => !m.includes('*')), patterns: ['node:*'] },
      ],
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
