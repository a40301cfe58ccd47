// The console process: configuration from the environment, its own PostgreSQL role
// (holdfast_console), the ops listener (/healthz, /readyz, /metrics on HOLDFAST_OPS_PORT, default
// 9468) first, then the pages on PORT (default 8090). The console runs no DDL: the control plane's
// migrations (run by every service's start or `holdfast migrate`) create its tables.
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createDb, createPool } from '@holdfast/postgres';
import {
  purgeConsoleSessions,
  purgeSignInFailures,
  rewrapConsoleTotpSecrets,
  sealConsoleTotpSecrets,
} from '@holdfast/control-plane';
import { EnvReader, poolOptions, readOpsConfig, runService } from '@holdfast/platform';
import { createConsole } from './app.js';
import { loadConsoleConfig } from './config.js';
import { DEFAULT_SIGN_IN_LIMITS } from './sign-in-policy.js';

const config = loadConsoleConfig(process.env);
const env = new EnvReader(process.env);
const opsConfig = env.done(readOpsConfig(env, 'HOLDFAST_OPS_PORT', 9468));

await runService({
  name: 'console',
  ops: opsConfig,
  start: async (ctx) => {
    const { logger } = ctx;
    const pool = ctx.postgres(
      createPool(config.infra.databaseUrl, 'console', 10, poolOptions(config.infra, logger)),
    );
    const db = createDb(pool);
    // Second factors enrolled before they were sealed are sealed now; after a key rotation
    // (HOLDFAST_CONSOLE_KEYS with a new key first) the old key's are re-wrapped. Both idempotent.
    const sealed = await sealConsoleTotpSecrets(db, config.consoleKeys);
    const rewrapped = await rewrapConsoleTotpSecrets(db, config.consoleKeys);
    if (sealed || rewrapped) logger.info('console_totp_secrets_sealed', { sealed, rewrapped });
    const app = createConsole(config, { pool, logger });
    // Expired sessions and old sign-in failures go every 10 minutes.
    const janitor = setInterval(() => {
      const now = new Date();
      void Promise.all([
        purgeConsoleSessions(db, now),
        purgeSignInFailures(db, new Date(now.getTime() - DEFAULT_SIGN_IN_LIMITS.windowMs)),
      ]).catch((err: unknown) => logger.warn('console_janitor_failed', { error: (err as Error).message }));
    }, 600_000);
    janitor.unref();
    ctx.onStop('janitor', () => clearInterval(janitor));
    const server = app.listen(config.port, config.host);
    await once(server, 'listening');
    ctx.onStop('http', () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      return closed;
    });
    const { port } = server.address() as AddressInfo;
    logger.info('console_listening', { port, host: config.host });
    process.stdout.write(`console listening on http://${config.host}:${port}\n`);
  },
});
