import type { InfraConfig } from '../config.js';
import type { Logger } from '../logger.js';

/**
 * A service pool's PostgreSQL timeouts from its infrastructure settings, with its logger: the
 * options `createPool` takes.
 *
 * @example
 * const pool = createPool(infra.databaseUrl, 'holdfast-dispatcher', 4, poolOptions(infra, logger));
 */
export function poolOptions(
  infra: Pick<InfraConfig, 'pgStatementTimeoutMs' | 'pgConnectTimeoutMs'>,
  logger: Logger,
): { statementTimeoutMs?: number; connectTimeoutMs?: number; logger: Logger } {
  return {
    statementTimeoutMs: infra.pgStatementTimeoutMs,
    connectTimeoutMs: infra.pgConnectTimeoutMs,
    logger,
  };
}
