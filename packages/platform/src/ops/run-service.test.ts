import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import type { Logger } from '../logger.js';
import {
  ExitCode,
  runService,
  type RunningService,
  type ServiceHost,
  type ServiceOptions,
} from './run-service.js';

// A process stand-in: signals are emitted by the test, exit codes are recorded (and resolve `exited`).
function fakeHost() {
  const signals = new EventEmitter();
  const codes: number[] = [];
  let resolveExit: (code: number) => void = () => {};
  const exited = new Promise<number>((r) => (resolveExit = r));
  const host: ServiceHost = {
    onSignal: (signal, handler) => void signals.on(signal, handler),
    exit: (code) => {
      codes.push(code);
      resolveExit(code);
    },
  };
  return { host, codes, exited, signal: (s: 'SIGTERM' | 'SIGINT') => signals.emit(s) };
}

function recordingLogger() {
  const events: { event: string; context?: Record<string, unknown> }[] = [];
  const log = (event: string, context?: Record<string, unknown>) => void events.push({ event, context });
  const logger: Logger = { debug: log, info: log, warn: log, error: log, child: () => logger };
  return { logger, events, names: () => events.map((e) => e.event) };
}

let running: RunningService | undefined;
afterEach(async () => {
  await running?.ops.close();
  running = undefined;
});

const ops = {
  port: 0,
  host: '127.0.0.1',
  maxLoopLagMs: 5_000,
  consumerStuckMs: 1_000,
  consumerStallMs: 1_000,
  retryBudget: 10,
};

async function run(over: Partial<ServiceOptions> & Pick<ServiceOptions, 'start'>) {
  const h = fakeHost();
  const log = recordingLogger();
  running = await runService({ name: 'svc', ops, host: h.host, logger: log.logger, ...over });
  await running.started;
  return { ...h, ...log, readyz: () => fetch(`http://127.0.0.1:${running!.ops.port}/readyz`) };
}

describe('runService', () => {
  it('reports ready once start resolves, then stops on SIGTERM: steps last-added first, exit 0', async () => {
    const order: string[] = [];
    const svc = await run({
      start: (ctx) => {
        ctx.postgres({
          query: () => Promise.resolve(),
          end: () => Promise.resolve(void order.push('postgres')),
        });
        ctx.dependency('registry', () => 'up');
        ctx.onStop('producer', () => order.push('producer'));
        ctx.onStop('consumer', async () => {
          await new Promise((r) => setTimeout(r, 5));
          order.push('consumer');
        });
      },
    });
    const ready = await svc.readyz();
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ ready: true, checks: { postgres: 'ok', registry: 'ok' } });

    svc.signal('SIGTERM');
    expect(await svc.exited).toBe(ExitCode.stopped);
    expect(order).toEqual(['consumer', 'producer', 'postgres']);
    expect(svc.names()).toEqual(['svc_ops_listening', 'svc_ready', 'svc_stopping', 'svc_stopped']);
    expect(svc.events[2]!.context).toEqual({ reason: 'SIGTERM' });
  });

  it('answers /readyz not ready while the stop steps run', async () => {
    let release: () => void = () => {};
    const svc = await run({
      start: (ctx) => {
        ctx.dependency('postgres', () => 'up');
        ctx.onStop('consumer', () => new Promise<void>((r) => (release = r)));
      },
    });
    svc.signal('SIGINT');
    const res = await svc.readyz();
    const readyDuringStop = { status: res.status, body: await res.json() };
    release();
    expect(await svc.exited).toBe(ExitCode.stopped);
    expect(readyDuringStop).toEqual({
      status: 503,
      body: { ready: false, checks: { shutdown: 'failing: stopping' } },
    });
  });

  it('logs a step that throws, still runs the others and exits 0', async () => {
    const order: string[] = [];
    const svc = await run({
      start: (ctx) => {
        ctx.onStop('pool', () => order.push('pool'));
        ctx.onStop('consumer', () => {
          throw new Error('broker gone');
        });
      },
    });
    svc.signal('SIGTERM');
    expect(await svc.exited).toBe(ExitCode.stopped);
    expect(order).toEqual(['pool']);
    expect(svc.events.find((e) => e.event === 'svc_stop_failed')?.context).toEqual({
      step: 'consumer',
      error: 'broker gone',
    });
  });

  it('exits 1 when a step hangs past the stop timeout, naming the step', async () => {
    const svc = await run({
      stopTimeoutMs: 50,
      start: (ctx) => {
        ctx.onStop('consumer', () => new Promise(() => {}));
      },
    });
    svc.signal('SIGTERM');
    expect(await svc.exited).toBe(ExitCode.failed);
    expect(svc.codes).toEqual([1]);
    expect(svc.events.find((e) => e.event === 'svc_stop_timed_out')?.context).toEqual({
      step: 'consumer',
      timeoutMs: 50,
    });
  });

  it('ignores a second signal while stopping: each step runs once, the process exits once', async () => {
    let runs = 0;
    let release: () => void = () => {};
    const svc = await run({
      start: (ctx) => {
        ctx.onStop('consumer', () => {
          runs++;
          return new Promise<void>((r) => (release = r));
        });
      },
    });
    svc.signal('SIGTERM');
    svc.signal('SIGINT');
    svc.signal('SIGTERM');
    release();
    expect(await svc.exited).toBe(ExitCode.stopped);
    await new Promise((r) => setTimeout(r, 20));
    expect(runs).toBe(1);
    expect(svc.codes).toEqual([0]);
  });

  it('stops with exit 1 when a started part crashes', async () => {
    const order: string[] = [];
    const svc = await run({
      start: (ctx) => {
        ctx.onStop('consumer', () => order.push('consumer'));
        return { crashed: Promise.resolve(new Error('bug in a handler')) };
      },
    });
    expect(await svc.exited).toBe(ExitCode.failed);
    expect(order).toEqual(['consumer']);
    expect(svc.events.find((e) => e.event === 'svc_crashed')?.context).toEqual({ error: 'bug in a handler' });
  });

  it('exits at once on a signal during start-up, aborting its waits and running no step', async () => {
    const h = fakeHost();
    const log = recordingLogger();
    let aborted = false;
    const closed: string[] = [];
    running = await runService({
      name: 'svc',
      ops,
      host: h.host,
      logger: log.logger,
      start: async (ctx) => {
        ctx.onStop('pool', () => closed.push('pool'));
        await new Promise<void>((resolve) => ctx.wait.signal!.addEventListener('abort', () => resolve()));
        aborted = true;
        throw new Error('aborted');
      },
    });
    h.signal('SIGTERM');
    expect(await h.exited).toBe(ExitCode.stopped);
    await running.started;
    expect(aborted).toBe(true);
    expect(closed).toEqual([]);
    expect(h.codes).toEqual([0]);
    expect(log.names()).not.toContain('svc_start_failed');
  });

  it('exits 1 when start-up fails, and never reports ready', async () => {
    const svc = await run({
      start: () => Promise.reject(new Error('migration 2026-01 failed')),
    });
    expect(await svc.exited).toBe(ExitCode.failed);
    expect(svc.events.find((e) => e.event === 'svc_start_failed')?.context).toEqual({
      error: 'migration 2026-01 failed',
    });
    expect((await svc.readyz()).status).toBe(503);
  });
});
