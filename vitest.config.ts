import { defineConfig } from 'vitest/config';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('.', import.meta.url));
// Tests import workspace packages from source, so no build is needed before a test run.
const services = ['gateway', 'projector', 'recompute', 'dispatcher', 'console'];
const alias = [
  { find: new RegExp(`^@holdfast/(${services.join('|')})$`), replacement: `${root}services/$1/src/index.ts` },
  { find: /^@holdfast\/testing\/([a-z-]+)$/, replacement: `${root}packages/testing/src/$1/index.ts` },
  { find: /^@holdfast\/([a-z-]+)$/, replacement: `${root}packages/$1/src/index.ts` },
];

export default defineConfig({
  resolve: { alias },
  test: {
    // vitest's default on this 2-core machine is one worker (cores - 1), so every integration file waited
    // for the one before it although most of their time is spent waiting on Kafka and PostgreSQL. Three
    // workers keep both cores busy; the e2e tier still runs one file at a time (fileParallelism: false).
    maxWorkers: Number(process.env.HOLDFAST_TEST_WORKERS ?? 3),
    projects: [
      {
        resolve: { alias },
        test: {
          name: 'unit',
          include: [
            '{packages,services}/*/src/**/*.test.ts',
            '{packages,services}/*/test/**/*.test.ts',
            'scripts/**/*.test.ts',
            'tests/**/*.test.ts',
          ],
          exclude: ['**/*.int.test.ts', '**/*.e2e.test.ts', '**/node_modules/**'],
        },
      },
      {
        resolve: { alias },
        test: {
          name: 'integration',
          include: [
            '{packages,services}/*/src/**/*.int.test.ts',
            '{packages,services}/*/test/**/*.int.test.ts',
            'infra/**/*.int.test.ts',
            'tests/**/*.int.test.ts',
          ],
          globalSetup: ['packages/testing/src/global-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
      {
        resolve: { alias },
        test: {
          name: 'e2e',
          include: [
            '{packages,services}/*/src/**/*.e2e.test.ts',
            '{packages,services}/*/test/**/*.e2e.test.ts',
            'tests/**/*.e2e.test.ts',
          ],
          // The short chaos run is in (four runs in a row passed with the consumer stall watchdog;
          // docs/reliability.md). The cluster run (npm run test:cluster, ~2 min, three brokers) is
          // not: its lost batch was kafkajs's (a partition dropped whose leader died mid-send;
          // reliability.md, "Found and fixed"; that client is gone), and it joins the gate once it
          // has a longer record of passing runs on @platformatic/kafka (2 so far, 2026-11-27).
          exclude: process.env.HOLDFAST_CLUSTER_E2E === '1' ? [] : ['tests/cluster.e2e.test.ts'],
          globalSetup: ['packages/testing/src/global-setup.ts'],
          testTimeout: 600_000,
          hookTimeout: 300_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
