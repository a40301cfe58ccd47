import type { Registry } from 'prom-client';
import { createLogger, type Logger } from '../logger.js';
import { createMetricsRegistry } from '../metrics.js';
import { loadTracingConfig, startTracing } from '../tracing.js';
import type { WaitForOptions } from '../failure/wait-for.js';
import type { OpsConfig } from './ops-config.js';
import { startOpsServer, type OpsServer } from './ops-server.js';
import { postgresProbe } from './probes.js';
import { Readiness, type ReadinessCheck } from './readiness.js';

/**
 * How a service process ends. 0: stopped on SIGTERM/SIGINT (every stop step ran, a failing one is
 * logged). 1: a part crashed, start-up failed, or the stop overran its timeout; the supervisor
 * restarts it (nothing is lost: every service is crash-only, see docs/reliability.md).
 */
export const ExitCode = { stopped: 0, failed: 1 } as const;

/** How long a stop may take before the process exits 1: under Kubernetes' 30 s grace period (deploy/kubernetes). */
export const DEFAULT_STOP_TIMEOUT_MS = 25_000;

/** What `start` is given: the service's shared plumbing, already running. */
export interface ServiceContext {
  readonly logger: Logger;
  readonly registry: Registry;
  /** The checks behind /readyz; `started()` is called by the runtime once `start` resolves. */
  readonly readiness: Readiness;
  readonly ops: OpsServer;
  /** For `waitFor`: its `signal` is aborted as soon as a stop begins, so start-up waits give up. */
  readonly wait: WaitForOptions;
  /**
   * Adds a stop step. On stop the steps run one after another, the last added first (what was
   * opened last is closed first: the consumer before its producers, every client before the pool).
   */
  onStop(name: string, step: () => unknown): void;
  /** A dependency: its readiness check under `name`, and (optionally) how to close it on stop. */
  dependency(name: string, check: ReadinessCheck, close?: () => unknown): void;
  /** The service's PostgreSQL pool: the `postgres` check (`select 1`), and the pool ended on stop. */
  postgres<P extends PostgresPool>(pool: P): P;
}

/** What `ctx.postgres` needs of a pool (pg's `Pool`). */
export interface PostgresPool {
  query(sql: string): Promise<unknown>;
  end(): Promise<void>;
}

/** What a started service hands back. */
export interface StartedService {
  /** Settles when a part of the service failed for good: the process then stops with exit code 1. */
  readonly crashed?: Promise<Error>;
}

/** The process the runtime drives: signals in, an exit code out (tests pass their own). */
export interface ServiceHost {
  onSignal(signal: 'SIGTERM' | 'SIGINT', handler: () => void): void;
  exit(code: number): void;
}

const processHost: ServiceHost = {
  onSignal: (signal, handler) => process.on(signal, handler),
  exit: (code) => process.exit(code),
};

/** One service's process. */
export interface ServiceOptions {
  /** `gateway`, `projector`, …: the logger's `service`, the metrics' label, the log events' prefix. */
  readonly name: string;
  readonly ops: OpsConfig;
  /** Start OpenTelemetry tracing as `holdfast-<name>` (still off unless an OTLP endpoint is set). */
  readonly tracing?: boolean;
  /**
   * How long the stop steps may take together before the process exits 1 (default 25 s: a recompute
   * task or a projector chunk in flight gets to finish, under the deployments' 30 s grace period).
   */
  readonly stopTimeoutMs?: number;
  readonly logger?: Logger;
  readonly host?: ServiceHost;
  /** Connects and starts the service's own parts; the probes report not ready until it resolves. */
  start(ctx: ServiceContext): Promise<StartedService | void> | StartedService | void;
}

/** A running service (tests stop it directly; a process stops it with a signal). */
export interface RunningService {
  readonly ops: OpsServer;
  /** Resolves once start-up is over (or was cut short by a stop or a failure). */
  readonly started: Promise<void>;
  stop(reason: string, code: number): Promise<void>;
}

/**
 * The start-up and shutdown every service shares. In order: the ops listener (/healthz, /readyz,
 * /metrics) starts first, so a service waiting for a dependency is seen alive and not ready; the
 * signal handlers are installed; `start` connects and starts the service's parts; once it resolves
 * the service reports ready (`<name>_ready`).
 *
 * SIGTERM/SIGINT (once; a second signal while stopping is ignored, the timeout bounds the stop):
 * /readyz answers not ready at once; a stop during start-up exits at once (crash-only start-up:
 * nothing is half-done that a restart would not redo); otherwise the stop steps run in reverse order,
 * a failing step is logged and the next runs, then the ops listener closes and the process exits 0.
 * A stop that takes longer than `stopTimeoutMs` exits 1. A `crashed` part stops the process the same
 * way with exit code 1.
 *
 * @example
 * await runService({
 *   name: 'dispatcher',
 *   ops: loadOpsConfig(process.env, 'PORT', 9466),
 *   start: async (ctx) => {
 *     const pool = ctx.postgres(createPool(url, 'holdfast-dispatcher', 4, poolOptions(infra, ctx.logger)));
 *     const consumer = await waitFor('consumer', () => startConsumer(pool), ctx.wait);
 *     ctx.onStop('consumer', () => consumer.stop());
 *     return { crashed: consumer.crashed };
 *   },
 * });
 */
export async function runService(opts: ServiceOptions): Promise<RunningService> {
  const { name } = opts;
  const host = opts.host ?? processHost;
  const logger = opts.logger ?? createLogger(name);
  const timeoutMs = opts.stopTimeoutMs ?? DEFAULT_STOP_TIMEOUT_MS;
  // Off unless OTEL_EXPORTER_OTLP_ENDPOINT is set.
  const stopTracing = opts.tracing
    ? startTracing(`holdfast-${name}`, loadTracingConfig(process.env))
    : () => Promise.resolve();
  const registry = createMetricsRegistry(name);
  const readiness = new Readiness();
  const ops = await startOpsServer({ ...opts.ops, registry, readiness });
  logger.info(`${name}_ops_listening`, { metricsPort: ops.port });

  const steps: { name: string; run: () => unknown }[] = [];
  const aborted = new AbortController();
  let isStarted = false;
  let stopping = false;
  let exited = false;
  const exit = (code: number) => {
    if (exited) return;
    exited = true;
    host.exit(code);
  };

  async function stop(reason: string, code: number): Promise<void> {
    if (stopping) return;
    stopping = true;
    aborted.abort();
    readiness.stop();
    logger.info(`${name}_stopping`, { reason });
    if (!isStarted) return exit(code);
    let step = '';
    const hardStop = setTimeout(() => {
      logger.error(`${name}_stop_timed_out`, { step, timeoutMs });
      exit(ExitCode.failed);
    }, timeoutMs);
    for (const s of steps.reverse()) {
      step = s.name;
      try {
        await s.run();
      } catch (err) {
        logger.error(`${name}_stop_failed`, { step, error: (err as Error).message });
      }
    }
    await ops.close();
    await stopTracing().catch(() => {});
    clearTimeout(hardStop);
    logger.info(`${name}_stopped`, { reason });
    exit(code);
  }
  host.onSignal('SIGTERM', () => void stop('SIGTERM', ExitCode.stopped));
  host.onSignal('SIGINT', () => void stop('SIGINT', ExitCode.stopped));

  function dependency(dep: string, check: ReadinessCheck, close?: () => unknown): void {
    readiness.add(dep, check);
    if (close) steps.push({ name: dep, run: close });
  }
  const ctx: ServiceContext = {
    logger,
    registry,
    readiness,
    ops,
    wait: { logger, signal: aborted.signal },
    onStop: (stepName, run) => void steps.push({ name: stepName, run }),
    dependency,
    postgres: (pool) => {
      dependency('postgres', postgresProbe(pool), () => pool.end());
      return pool;
    },
  };
  const started = Promise.resolve()
    .then(() => opts.start(ctx))
    .then(
      (service) => {
        if (stopping) return;
        isStarted = true;
        readiness.started();
        logger.info(`${name}_ready`, { metricsPort: ops.port });
        void service?.crashed?.then((err) => {
          logger.error(`${name}_crashed`, { error: err.message });
          return stop('crash', ExitCode.failed);
        });
      },
      (err: unknown) => {
        // A stop during start-up aborts the waits; that is not a failure of its own.
        if (stopping) return;
        logger.error(`${name}_start_failed`, { error: err instanceof Error ? err.message : String(err) });
        exit(ExitCode.failed);
      },
    );
  return { ops, started, stop };
}
